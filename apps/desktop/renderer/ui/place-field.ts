/**
 * A place to read from or write to: a folder (a folder field) or a bucket
 * (an `s3://` URL, an optional endpoint URL and profile), chosen with two
 * radio buttons. The bucket's URL and endpoint are checked as they are left
 * and again when the value is taken, with the reason shown under the field.
 * Credentials are never asked for: a hint says where they come from.
 */
import type { S3Options } from '@brickpost/engine/api';
import { h, uid } from './dom.js';
import { folderField, type FolderField } from './folder-field.js';
import { checkEndpoint, checkS3Url, isBucket, s3Options } from './s3.js';

/** A place as the engine takes it: a folder path or an `s3://` URL, and how to reach the bucket. */
export interface Place {
  where: string;
  s3?: S3Options;
}

export interface PlaceField {
  el: HTMLElement;
  folder: FolderField;
  kind(): 'folder' | 'bucket';
  /**
   * The place chosen (a folder's path may be ''), or null when the bucket's
   * URL or endpoint is refused: the reason is then shown and the field focused.
   */
  value(): Place | null;
  /** The place as value() gives it, but null without showing anything when the bucket's fields are refused. */
  peek(): Place | null;
  /** Calls `fn` when the kind, the folder or the bucket's fields change. */
  onChange(fn: () => void): void;
}

interface TextField {
  el: HTMLElement;
  input: HTMLInputElement;
  /** Shows `problem` under the field (null clears it); true when there was none. */
  mark(problem: string | null): boolean;
}

function textField(name: string, label: string, value: string, help: string, placeholder: string): TextField {
  const id = uid(name);
  const input = h('input', {
    type: 'text',
    id,
    name,
    value,
    placeholder,
    autocomplete: 'off',
    spellcheck: 'false',
    class: 'path',
    'aria-describedby': `${id}-help ${id}-error`,
  });
  const error = h('p', { class: 'field-error', id: `${id}-error`, 'data-testid': `${name}-error`, hidden: true });
  const mark = (problem: string | null): boolean => {
    error.textContent = problem ?? '';
    error.hidden = problem === null;
    if (problem === null) input.removeAttribute('aria-invalid');
    else input.setAttribute('aria-invalid', 'true');
    return problem === null;
  };
  return { el: h('div', { class: 'field' }, h('label', { for: id }, label), input, h('p', { class: 'help', id: `${id}-help` }, help), error), input, mark };
}

/**
 * A folder-or-bucket field. `name` names the folder's input (as folderField
 * does) and prefixes the others: NAME-kind (the radio buttons, values
 * `folder` and `bucket`), NAME-url, NAME-endpoint, NAME-profile.
 */
export function placeField(opts: {
  legend: string;
  name: string;
  folder: { label: string; title: string; help?: string };
  bucketHelp: string;
  value?: string;
  s3?: S3Options | undefined;
}): PlaceField {
  const initial = opts.value ?? '';
  const startBucket = isBucket(initial);
  const folder = folderField({ ...opts.folder, name: opts.name, value: startBucket ? '' : initial });
  const url = textField(`${opts.name}-url`, 'Bucket URL', startBucket ? initial : '', opts.bucketHelp, 's3://bucket-name/prefix');
  const endpoint = textField(
    `${opts.name}-endpoint`,
    'Endpoint URL (optional)',
    opts.s3?.endpointUrl ?? '',
    'Only for S3 servers other than AWS (MinIO, Ceph, Garage, versitygw…). Empty: AWS, or AWS_ENDPOINT_URL when it is set.',
    'https://s3.example.org',
  );
  const profile = textField(
    `${opts.name}-profile`,
    'Profile (optional)',
    opts.s3?.profile ?? '',
    'A profile of ~/.aws/credentials and ~/.aws/config. Empty: AWS_PROFILE, else default.',
    'default',
  );
  const bucketPanel = h(
    'div',
    { class: 'bucket-fields', 'data-testid': `${opts.name}-bucket`, hidden: !startBucket },
    url.el,
    endpoint.el,
    profile.el,
    h(
      'p',
      { class: 'help', 'data-testid': 'credentials-hint' },
      'Credentials are never typed here: brickpost takes them, as AWS tools do, from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or the files ~/.aws/credentials and ~/.aws/config.',
    ),
  );
  const listeners: Array<() => void> = [];
  const changed = (): void => listeners.forEach((fn) => fn());
  const radio = (value: 'folder' | 'bucket', label: string): { el: HTMLElement; box: HTMLInputElement } => {
    const id = uid(`${opts.name}-kind`);
    const box = h('input', { type: 'radio', id, name: `${opts.name}-kind`, value, checked: (value === 'bucket') === startBucket });
    box.addEventListener('change', () => {
      folder.el.hidden = value !== 'folder';
      bucketPanel.hidden = value !== 'bucket';
      changed();
    });
    return { box, el: h('div', { class: 'choice' }, box, h('label', { for: id }, h('span', { class: 'choice-title' }, label))) };
  };
  const asFolder = radio('folder', 'Folder');
  const asBucket = radio('bucket', 'Bucket (S3)');
  folder.el.hidden = startBucket;
  const checkUrl = (): { url: string } | null => {
    const r = checkS3Url(url.input.value);
    return url.mark('problem' in r ? r.problem : null) && 'url' in r ? r : null;
  };
  url.input.addEventListener('blur', () => {
    if (url.input.value.trim() !== '') checkUrl();
  });
  endpoint.input.addEventListener('blur', () => endpoint.mark(checkEndpoint(endpoint.input.value)));
  for (const i of [folder.input, url.input, endpoint.input, profile.input]) i.addEventListener('change', changed);

  const kind = (): 'folder' | 'bucket' => (asBucket.box.checked ? 'bucket' : 'folder');
  const value = (): Place | null => {
    if (kind() === 'folder') return { where: folder.value() };
    const u = checkUrl();
    if (!u) {
      url.input.focus();
      return null;
    }
    if (!endpoint.mark(checkEndpoint(endpoint.input.value))) {
      endpoint.input.focus();
      return null;
    }
    const s3 = s3Options(endpoint.input.value, profile.input.value);
    return { where: u.url, ...(s3 ? { s3 } : {}) };
  };
  const peek = (): Place | null => {
    if (kind() === 'folder') return { where: folder.value() };
    const u = checkS3Url(url.input.value);
    if (!('url' in u) || checkEndpoint(endpoint.input.value) !== null) return null;
    const s3 = s3Options(endpoint.input.value, profile.input.value);
    return { where: u.url, ...(s3 ? { s3 } : {}) };
  };
  const el = h(
    'div',
    { class: 'place-field' },
    h('fieldset', { class: 'choices place-kind' }, h('legend', {}, opts.legend), asFolder.el, asBucket.el),
    folder.el,
    bucketPanel,
  );
  return { el, folder, kind, value, peek, onChange: (fn) => void listeners.push(fn) };
}
