// Host names, addresses and origins as the network checks compare them (clinic-api-1.2.md, "Network": Host, Origin).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostNameOf, isWildcardAddress, normalizeHostName, normalizeOrigin, OWN_PC_HOST_NAMES } from '../src/network-names.js';

/** Each of `inputs` with what `read` makes of it, for one deepEqual that names the input that differs. */
const readEach = <T>(inputs: string[], read: (input: string) => T) => inputs.map((input) => [input, read(input)]);

describe('network names', () => {
  it('reads a Host header as its host name: case, the port, IPv6 and international spellings do not matter', () => {
    assert.deepEqual(readEach(['LOCALHOST:8080', '127.0.0.1:80', '[0:0:0:0:0:0:0:1]:8080', 'Bücher.Example', '2130706433'], hostNameOf), [
      ['LOCALHOST:8080', 'localhost'],
      ['127.0.0.1:80', '127.0.0.1'],
      ['[0:0:0:0:0:0:0:1]:8080', '[::1]'],
      ['Bücher.Example', 'xn--bcher-kva.example'],
      // A browser reads a bare number as an IPv4 address: a page rebinding to 127.0.0.1 by it is still 127.0.0.1.
      ['2130706433', '127.0.0.1'],
    ]);
  });

  it('refuses a Host that is more than a host and a port: user info would let evil.example@localhost pass for localhost', () => {
    const refused = [
      '',
      'evil.example@localhost',
      'localhost/admin',
      'localhost?x',
      'localhost#x',
      'local host',
      'localhost\\x',
      ':8080',
      '[::1',
      'localhost:65536',
    ];
    assert.deepEqual(
      readEach(refused, hostNameOf),
      refused.map((input) => [input, undefined]),
    );
  });

  it('takes an --allowed-host or --host name without its port, IPv6 without brackets too; a name with a port or a path is none', () => {
    assert.deepEqual(
      readEach(
        ['::1', '[::1]', 'fe80::1', 'Clinic.Praxis.Lan', '192.168.1.20', 'clinic.local:8080', '[::1]:8080', 'http://clinic.local', ''],
        normalizeHostName,
      ),
      [
        ['::1', '[::1]'],
        ['[::1]', '[::1]'],
        ['fe80::1', '[fe80::1]'],
        ['Clinic.Praxis.Lan', 'clinic.praxis.lan'],
        ['192.168.1.20', '192.168.1.20'],
        ['clinic.local:8080', undefined],
        ['[::1]:8080', undefined],
        ['http://clinic.local', undefined],
        ['', undefined],
      ],
    );
    // Every server answers to its own PC's names, as hostNameOf reads them from a Host header.
    assert.deepEqual(
      OWN_PC_HOST_NAMES.map((name) => hostNameOf(`${name}:8080`)),
      OWN_PC_HOST_NAMES,
    );
  });

  it('knows a --host that listens on every interface, IPv6 spelt any way, from one that names an address', () => {
    assert.deepEqual(
      readEach(
        ['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '0000::', '127.0.0.1', '::1', 'localhost', '192.168.1.20', ''],
        isWildcardAddress,
      ),
      [
        ['0.0.0.0', true],
        ['::', true],
        ['[::]', true],
        ['0:0:0:0:0:0:0:0', true],
        ['0000::', true],
        ['127.0.0.1', false],
        ['::1', false],
        ['localhost', false],
        ['192.168.1.20', false],
        ['', false],
      ],
    );
  });

  it('writes an origin as browsers send it in Origin: lower case, no default port, no slash', () => {
    assert.deepEqual(
      readEach(
        ['HTTPS://Portal.Example:8443', 'https://portal.example:443', 'http://portal.example:80/', 'http://[0:0::1]:8080'],
        normalizeOrigin,
      ),
      [
        ['HTTPS://Portal.Example:8443', 'https://portal.example:8443'],
        ['https://portal.example:443', 'https://portal.example'],
        ['http://portal.example:80/', 'http://portal.example'],
        ['http://[0:0::1]:8080', 'http://[::1]:8080'],
      ],
    );
  });

  it('refuses an origin with a path, a query, a fragment or user info, of another scheme, or none at all', () => {
    const refused = [
      'https://portal.example/app',
      'https://portal.example/?next=1',
      'https://portal.example/#top',
      'https://user@portal.example',
      'https://user:secret@portal.example',
      'ftp://portal.example',
      'file:///etc/passwd',
      'portal.example',
      '*',
      'null',
      '',
    ];
    assert.deepEqual(
      readEach(refused, normalizeOrigin),
      refused.map((input) => [input, undefined]),
    );
  });
});
