/**
 * The local S3 server of the s3 scenario: versitygw (the one the tests use,
 * scripts/install-versitygw.sh) over a folder in the bench's work root, on
 * a free loopback port. rclone gets an empty AWS_CA_BUNDLE: the server is
 * plain http, and a bundle set for the machine makes rclone refuse to start. Its posix backend keeps a bucket as a folder and an
 * object as a file, so the dataset is put in place as a bucket by a copy
 * (untimed), and what was written can be read back as files.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

const VERSION = 'v1.8.0';

export function findVersitygw() {
  if (process.env.BRICKPOST_VERSITYGW) return existsSync(process.env.BRICKPOST_VERSITYGW) ? process.env.BRICKPOST_VERSITYGW : null;
  const root = process.env.BRICKPOST_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'brickpost-tools');
  const known = join(root, `versitygw-${VERSION}`, 'versitygw');
  return existsSync(known) ? known : null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts the server over WORK/s3; resolves to { endpoint, root, env, rcloneEnv, stop }. */
export async function startS3(work, log) {
  const bin = findVersitygw();
  if (!bin) throw new Error('versitygw is not installed: run scripts/install-versitygw.sh');
  const root = join(work, 's3', 'data');
  const iam = join(work, 's3', 'iam');
  mkdirSync(root, { recursive: true });
  mkdirSync(iam, { recursive: true });
  const access = 'benchaccess';
  const secret = 'bench-secret-0123456789';
  const port = await freePort();
  const out = openSync(join(work, 's3', 'versitygw.log'), 'a');
  const proc = spawn(bin, ['--access', access, '--secret', secret, '--port', `127.0.0.1:${port}`, '--iam-dir', iam, 'posix', root], {
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`versitygw exited (${proc.exitCode}); see ${join(work, 's3', 'versitygw.log')}`);
    const r = spawnSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore' });
    if (r.status === 0) break;
    if (i > 200) throw new Error('versitygw did not start');
    await new Promise((res) => setTimeout(res, 50));
  }
  log?.(`s3: versitygw ${VERSION} on ${endpoint}, data in ${root}`);
  return {
    endpoint,
    root,
    env: {
      AWS_ACCESS_KEY_ID: access,
      AWS_SECRET_ACCESS_KEY: secret,
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    rcloneEnv: {
      RCLONE_S3_PROVIDER: 'Other',
      RCLONE_S3_ENDPOINT: endpoint,
      RCLONE_S3_ACCESS_KEY_ID: access,
      RCLONE_S3_SECRET_ACCESS_KEY: secret,
      RCLONE_S3_REGION: 'us-east-1',
      RCLONE_CONFIG: '/dev/null',
      AWS_CA_BUNDLE: '',
    },
    stop: () => proc.kill('SIGKILL'),
  };
}
