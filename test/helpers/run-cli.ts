import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `clinic <args>` as a child process, as a person would: by default the TypeScript source
 * through tsx; with CLINIC_BIN set (e.g. to dist/clinic), that executable instead.
 */
export function runClinic(args: readonly string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  const bin = process.env.CLINIC_BIN;
  const [command, prefix] = bin ? [bin, []] : [process.execPath, ['--import', 'tsx', 'src/main.ts']];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...args], {
      cwd: root,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
