/** The commands of this home's identity and the keys it trusts, in help order. */
import { json, type CommandSpec } from './spec.js';

export const KEYS_COMMANDS: CommandSpec[] = [
  {
    name: 'keygen',
    summary: 'create your identity (age key pair and minisign signing key)',
    args: [],
    min: 0,
    options: [
      { name: 'name', type: 'string', value: 'NAME', help: 'a name for you, shown to the people you send drives to' },
      { name: 'force', type: 'boolean', help: 'replace an existing identity (the old keys are lost)' },
      json('print the new identity as a JSON document'),
    ],
    json: 'document',
    details:
      'Share the printed recipient (age1…) with publishers who send you data, and the\nminisign public key (RW…) with subscribers who receive your drives.',
    load: () => import('../commands/keygen.js'),
  },
  {
    name: 'whoami',
    summary: 'show your recipient, public key and key files',
    args: [],
    min: 0,
    options: [
      { name: 'contact', type: 'boolean', help: 'only what others need to trust you: name, recipient, public key, key id (no local paths)' },
      json('print {recipient, minisignPublicKey, keyId, identityFile, minisignPublicKeyFile, name, home} (with --contact: the first three and name)'),
    ],
    json: 'document',
    details:
      "Send 'brickpost whoami --contact' to the people you exchange drives with:\n'brickpost trust add' takes it as it is (a file, or - for standard input) and\nrecords both your signing key and your recipient.",
    load: () => import('../commands/whoami.js'),
  },
  {
    name: 'trust add',
    summary: "trust a publisher's or subscriber's public key (and record their recipient)",
    args: ['KEY-or-FILE'],
    min: 1,
    options: [
      { name: 'name', type: 'string', value: 'NAME', help: 'a name for them (default: the name in the pasted text, else key-ID)' },
      { name: 'recipient', type: 'string', value: 'AGE1-KEY', help: "their age recipient (age1…), so 'pack --recipient NAME' encrypts to them" },
      json('print the trusted key as a JSON document'),
    ],
    json: 'document',
    details:
      "KEY is a minisign public key line (RW…), a file holding one such as\nminisign.pub, the text 'brickpost whoami' prints (saved to a file, or - to read\nstandard input), or any text with one RW… key and one age1… recipient as\nwords of their own: the recipient is then recorded too. An existing file is\nread. Adding a key trusted already updates its name or recipient.",
    load: () => import('../commands/trust.js'),
  },
  {
    name: 'trust list',
    summary: 'list trusted keys and their recipients',
    args: [],
    min: 0,
    options: [json('print a JSON array of trusted keys')],
    json: 'document',
    load: () => import('../commands/trust.js'),
  },
  {
    name: 'trust remove',
    summary: 'stop trusting a publisher key',
    args: ['NAME-or-KEYID'],
    min: 1,
    options: [json('print the removed key as a JSON document')],
    json: 'document',
    load: () => import('../commands/trust.js'),
  },
];
