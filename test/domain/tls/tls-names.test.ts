import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { certificateNames, LOOPBACK_NAMES, parseTlsName, type TlsName } from '../../../src/domain/tls/tls-names.js';

// The names `clinic tls init --name` puts in a server certificate (clinic-api-1.2.md, Network, "TLS").

/** A certificate's name of each kind: a host name (DNS) and an IP address. */
const dns = (value: string): TlsName => ({ kind: 'dns', value });
const ip = (value: string): TlsName => ({ kind: 'ip', value });

const HOST_NAME_REASON = /^expected a host name \(letters, digits, hyphens and dots/;

describe('parseTlsName', () => {
  it('takes a host name as a certificate carries it: lower case, without a trailing dot, an international name as xn--', () => {
    assert.deepEqual(parseTlsName(' Clinic-PC.Praxis.LAN. '), { name: dns('clinic-pc.praxis.lan') });
    assert.deepEqual(parseTlsName('praxis-müller.at'), { name: dns('xn--praxis-mller-klb.at') });
  });

  it('takes an IP address, IPv6 with or without brackets, in the form Node prints it', () => {
    assert.deepEqual(parseTlsName('192.168.1.20'), { name: ip('192.168.1.20') });
    assert.deepEqual(parseTlsName('[FE80:0:0::0001]'), { name: ip('fe80::1') });
    assert.deepEqual(parseTlsName('fe80::1'), { name: ip('fe80::1') });
  });

  it('takes labels of 63 characters and names of 253, and refuses one character more of either', () => {
    const label = (char: string, length: number) => char.repeat(length);
    assert.equal(parseTlsName(label('a', 63)).name?.value, label('a', 63));
    assert.match(parseTlsName(label('a', 64)).reason ?? '', HOST_NAME_REASON);
    const longest = [label('a', 63), label('b', 63), label('c', 63), label('d', 61)].join('.');
    assert.equal(longest.length, 253);
    assert.equal(parseTlsName(longest).name?.value, longest);
    assert.match(parseTlsName(`${longest}d`).reason ?? '', HOST_NAME_REASON);
  });

  it('refuses a wildcard, an IPv4 address mistyped, and what no host name may hold, each saying what it expected', () => {
    assert.deepEqual(parseTlsName('*.praxis.lan'), { reason: 'expected a host name or an IP address; wildcards are not issued' });
    assert.deepEqual(parseTlsName('192.168.1'), {
      reason: 'expected an IP address of four numbers (e.g. 192.168.1.20) or a host name',
    });
    for (const text of ['', '   ', 'under_score', '-clinic', 'clinic-', 'clinic pc', 'a..b']) {
      assert.match(parseTlsName(text).reason ?? 'taken', HOST_NAME_REASON, JSON.stringify(text));
    }
  });
});

describe('certificateNames', () => {
  it('gives the names given first, then localhost, 127.0.0.1 and ::1, each once', () => {
    assert.deepEqual(certificateNames([dns('clinic-pc'), ip('127.0.0.1'), dns('clinic-pc')]), [
      dns('clinic-pc'),
      ip('127.0.0.1'),
      dns('localhost'),
      ip('::1'),
    ]);
    assert.deepEqual(certificateNames([]), LOOPBACK_NAMES);
  });
});
