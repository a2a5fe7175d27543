/**
 * A real S3-compatible server for the object storage tests: versitygw (an
 * Apache-2.0 S3 gateway over a local folder), started on a free loopback
 * port over a fresh folder and stopped when the process exits.
 * `scripts/install-versitygw.sh` builds it (`.ci/run` does so); the tests
 * find it at BRICKPOST_VERSITYGW, else where that script puts it, else on
 * PATH, else build it with that script where Go is on PATH. Without it
 * they fail and say how to install it, unless
 * BRICKPOST_S3_OPTIONAL=1 is set, when they skip and say why.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { ROOT, tempDir } from '../support.js';

export const VERSITYGW_VERSION = 'v1.8.0';

// The SDK's notice about the Node versions of its future releases would fill the test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The versitygw binary, or null. */
export function findVersitygw(): string | null {
  const env = process.env.BRICKPOST_VERSITYGW;
  if (env) return existsSync(env) ? env : null;
  const root = process.env.BRICKPOST_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'brickpost-tools');
  const known = join(root, `versitygw-${VERSITYGW_VERSION}`, 'versitygw');
  if (existsSync(known)) return known;
  const r = spawnSync('sh', ['-c', 'command -v versitygw'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/**
 * Builds versitygw with scripts/install-versitygw.sh where Go is on PATH (a
 * newcomer's `npm test`, as the age vectors are fetched with Go), once;
 * null when Go is missing or the build fails (its output says why).
 */
function buildVersitygw(): string | null {
  if (spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).status !== 0) return null;
  const script = join(ROOT, 'scripts', 'install-versitygw.sh');
  const r = spawnSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return r.status === 0 ? findVersitygw() : null;
}

/**
 * The skip option of a test that needs the server: false when it is there;
 * a reason when it is not and BRICKPOST_S3_OPTIONAL=1 allows skipping.
 * Otherwise throws, so the run fails and says how to install it.
 */
export function s3Skip(): false | string {
  if (findVersitygw() ?? buildVersitygw()) return false;
  const why = `versitygw ${VERSITYGW_VERSION} (the S3 server these tests run against) is not installed`;
  if (process.env.BRICKPOST_S3_OPTIONAL === '1') return `${why}; BRICKPOST_S3_OPTIONAL=1 allows skipping`;
  throw new Error(
    `${why}: run scripts/install-versitygw.sh (needs Go), or set BRICKPOST_VERSITYGW to its path; BRICKPOST_S3_OPTIONAL=1 skips these tests instead`,
  );
}

export interface S3Server {
  endpoint: string;
  access: string;
  secret: string;
  /** The folder the gateway serves: a bucket is a folder, an object a file. */
  root: string;
  /** The environment a brickpost run needs to reach it (credentials as AWS tools take them). */
  env: NodeJS.ProcessEnv;
  client: S3Client;
  bucket(name: string): Promise<void>;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** Starts versitygw on a fresh folder; resolves once it answers. */
export async function startS3(): Promise<S3Server> {
  const bin = findVersitygw();
  if (!bin) throw new Error('versitygw is not installed (scripts/install-versitygw.sh)');
  const base = tempDir('bp-s3-');
  const root = join(base, 'data');
  const iam = join(base, 'iam');
  mkdirSync(root);
  mkdirSync(iam);
  const access = 'brickpostroot';
  const secret = 'brickpost-test-secret-0123456789';
  let proc: ChildProcess | null = null;
  let port = 0;
  // Its output goes to a file, not a pipe: the tests run brickpost synchronously, and a full pipe would stop the server.
  const logFile = join(base, 'versitygw.log');
  for (let attempt = 0; attempt < 5 && !proc; attempt++) {
    port = await freePort();
    const out = openSync(logFile, 'a');
    const p = spawn(bin, ['--access', access, '--secret', secret, '--port', `127.0.0.1:${port}`, '--iam-dir', iam, 'posix', root], {
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    const endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: access, secretAccessKey: secret } });
    let up = false;
    // Until it answers or exits (a port taken meanwhile: try another).
    for (let i = 0; i < 400 && p.exitCode === null; i++) {
      try {
        await client.send(new ListBucketsCommand({}));
        up = true;
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    client.destroy();
    if (up) proc = p;
    else p.kill('SIGKILL');
  }
  if (!proc) throw new Error(`versitygw did not start: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
  const running = proc;
  process.on('exit', () => running.kill('SIGKILL'));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: access, secretAccessKey: secret } });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AWS_ACCESS_KEY_ID: access,
    AWS_SECRET_ACCESS_KEY: secret,
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(base, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(base, 'no-credentials'),
  };
  delete env.AWS_PROFILE;
  delete env.AWS_SESSION_TOKEN;
  return {
    endpoint,
    access,
    secret,
    root,
    env,
    client,
    bucket: async (name) => {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    stop: () => {
      client.destroy();
      running.kill('SIGKILL');
    },
  };
}
