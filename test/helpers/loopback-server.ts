import type { ClinicServerConfig } from '../../src/server/clinic-server.js';

/** Where a server a test starts itself (startClinicServer) serves `dataDir`: 127.0.0.1 on a free port, for no other host or origin. */
export function onLoopback(dataDir: string): Pick<ClinicServerConfig, 'dataDir' | 'host' | 'port' | 'allowedHosts' | 'allowedOrigins'> {
  return { dataDir, host: '127.0.0.1', port: 0, allowedHosts: [], allowedOrigins: [] };
}
