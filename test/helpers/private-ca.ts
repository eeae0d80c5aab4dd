// A private certificate authority made at test time with openssl, and a TLS front on loopback that hands each
// connection to a plain server (the emulator): https:// and wss:// with a chain no default store trusts.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';

export interface PrivateCa {
  dir: string;
  /** the CA's certificate (PEM file) */
  caFile: string;
  /** a server certificate for 127.0.0.1 and localhost, signed by the CA */
  serverCert: string;
  serverKey: string;
  /** a client certificate signed by the CA, and its key (mode 0600) */
  clientCert: string;
  clientKey: string;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });
/** P-256 keys: generated at once, where an RSA key costs 0.1-0.5 s of CPU (three per CA) */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

/** A CA, a server certificate for loopback and a client certificate, in a fresh temp folder. */
export function makePrivateCa(name = 'svc Test Root CA'): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ca-'));
  const days = ['-days', '30'];
  openssl(
    [
      'req',
      '-x509',
      ...NEW_KEY,
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      ...days,
      '-subj',
      `/O=svc tests/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  const leaf = (base: string, subject: string, ext: string) => {
    openssl(['req', ...NEW_KEY, '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject], dir);
    writeFileSync(join(dir, `${base}.ext`), ext);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${base}.pem`,
        ...days,
        '-extfile',
        `${base}.ext`,
      ],
      dir,
    );
    chmodSync(join(dir, `${base}.key`), 0o600);
  };
  leaf('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  leaf('client', '/CN=svc test client', 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client.key'),
  };
}

export interface TlsFront {
  /** https://127.0.0.1:PORT */
  url: string;
  port: number;
  /** the handshakes that failed on the server's side (a client certificate missing, an alert from the client) */
  failures: string[];
  /** TCP connections accepted so far */
  connections(): number;
  close(): Promise<void>;
}

/** A TLS server on loopback passing each connection to `target` (host:port); `requireClientCert` for mutual TLS. */
export function startTlsFront(ca: PrivateCa, target: string, opts: { requireClientCert?: boolean } = {}) {
  const [host, port] = [target.replace(/:\d+$/, ''), Number(target.replace(/^.*:/, ''))];
  const failures: string[] = [];
  const server: Server = createServer(
    {
      cert: readFileSync(ca.serverCert),
      key: readFileSync(ca.serverKey),
      ca: readFileSync(ca.caFile),
      requestCert: !!opts.requireClientCert,
      rejectUnauthorized: !!opts.requireClientCert,
    },
    (tlsSocket) => {
      const upstream = connect(port, host.replace(/^\[|\]$/g, ''));
      tlsSocket.pipe(upstream).pipe(tlsSocket);
      const end = () => {
        tlsSocket.destroy();
        upstream.destroy();
      };
      tlsSocket.on('error', end);
      upstream.on('error', end);
    },
  );
  server.on('tlsClientError', (err) => failures.push(err.message));
  let connections = 0;
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise<TlsFront>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const p = (server.address() as AddressInfo).port;
      resolve({
        url: `https://127.0.0.1:${p}`,
        port: p,
        failures,
        connections: () => connections,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}
