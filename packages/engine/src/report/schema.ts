/**
 * The JSON Schema (draft 2020-12) of `brickpost-report/v1`: what
 * `brickpost report --json` prints and the .json a report run writes.
 * Plain data, no Node imports. Kept in step with ShipmentReport
 * (api-report.ts) by the tests, which validate real reports against it.
 */

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const uint: Schema = { type: 'integer', minimum: 0 };
const num: Schema = { type: 'number', minimum: 0 };
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
const enm = (...values: string[]): Schema => ({ enum: values });
/** An object with exactly these properties, all required. */
const obj = (properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});

const problem = obj({ code: { type: 'string', pattern: '^[A-Z_]+$' }, message: str, path: str, hint: str }, ['path', 'hint']);
const outcome = enm('ok', 'failed', 'skipped');
const keyId = { type: 'string', pattern: '^([0-9A-F]{16})?$' };

/**
 * The custody log as the report embeds it (CustodyReport, FORMAT.md
 * §custody). Its members are required as listed; new ones may be added by
 * the custody log's own versions, so unknown members are allowed here.
 */
const custody: Schema = {
  type: 'object',
  required: ['shipmentId', 'drive', 'bag', 'log', 'ok', 'events', 'brokenAt', 'problems'],
  properties: {
    shipmentId: str,
    drive: nullable(str),
    bag: enm('present', 'removed', 'unknown'),
    log: nullable(str),
    ok: { type: 'boolean' },
    brokenAt: nullable({ type: 'integer', minimum: 1 }),
    problems: { type: 'array', items: { type: 'object', required: ['code', 'message'], properties: { code: str, message: str, path: str, n: uint } } },
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['n', 'type', 'at', 'shipment', 'drive', 'actor', 'details', 'prev', 'hash', 'source', 'valid'],
        properties: {
          n: { type: 'integer', minimum: 1 },
          type: str,
          at: str,
          shipment: str,
          drive: str,
          actor: {
            type: 'object',
            required: ['name', 'keyId', 'publicKey', 'trusted', 'trustedAs'],
            properties: { name: str, keyId: str, publicKey: str, trusted: { type: 'boolean' }, trustedAs: nullable(str) },
          },
          details: { type: 'object', additionalProperties: { anyOf: [str, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] } },
          prev: str,
          hash: str,
          source: enm('drive', 'bag', 'catalog'),
          valid: { type: 'boolean' },
        },
      },
    },
  },
};

/** JSON Schema of a ShipmentReport. */
export const REPORT_SCHEMA: Schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:brickpost:report:v1',
  title: 'brickpost verification report, brickpost-report/v1',
  ...obj({
    format: { const: 'brickpost-report/v1' },
    kind: enm('drive', 'dest'),
    target: str,
    created: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$' },
    verdict: obj({
      status: enm('intact', 'repairable', 'damaged', 'untrusted', 'not-authentic', 'unsafe', 'differs'),
      ok: { type: 'boolean' },
      title: str,
      advice: str,
    }),
    shipment: obj({
      id: str,
      dataset: str,
      datasetId: nullable(str),
      seq: uint,
      parent: nullable(str),
      label: str,
      created: nullable(str),
      files: nullable(uint),
      bytes: nullable(uint),
      drives: uint,
      dataDrives: uint,
      parityDrives: uint,
    }),
    publisher: obj({ keyId, name: nullable(str), trusted: { type: 'boolean' }, publicKey: str }, ['publicKey']),
    signature: enm('valid', 'invalid', 'missing', 'unknown-key', 'not-checked'),
    drives: {
      type: 'array',
      items: obj({
        drive: { type: 'integer', minimum: 1 },
        role: enm('data', 'parity'),
        state: enm('present', 'missing'),
        path: nullable(str),
        fixity: outcome,
        files: uint,
        bytes: uint,
        problems: uint,
      }),
    },
    check: obj({
      level: enm('fixity', 'deep', 'stat'),
      fixity: outcome,
      deep: outcome,
      files: uint,
      bytes: uint,
      chunksChecked: uint,
      chunksHeld: uint,
      problems: { type: 'array', maxItems: 1000, items: problem },
      problemsTotal: uint,
    }),
    repair: nullable(
      obj({
        repairable: { type: 'boolean' },
        damagedBlocks: uint,
        files: { type: 'array', items: obj({ path: str, damagedBlocks: uint, repairable: { type: 'boolean' } }) },
      }),
    ),
    dest: nullable(
      obj({
        path: str,
        publisherKeyId: keyId,
        keepUndo: uint,
        applied: {
          type: 'array',
          minItems: 1,
          items: obj(
            {
              shipmentId: str,
              seq: uint,
              label: str,
              appliedAt: str,
              files: uint,
              bytes: uint,
              bytesFromDrive: nullable(uint),
              parent: nullable(str),
              undoable: { type: 'boolean' },
              // Since the chunk undo store: rollback can return to it, its pins, its undo data's bytes.
              kept: { type: 'boolean' },
              pins: { type: 'array', items: str },
              undoBytes: uint,
            },
            ['kept', 'pins', 'undoBytes'],
          ),
        },
      }),
    ),
    timings: obj({
      seconds: num,
      phases: { type: 'array', items: obj({ phase: str, seconds: num, bytes: uint, files: uint, bytesPerSecond: uint }) },
    }),
    custody: nullable(custody),
    notes: { type: 'array', items: str },
  }),
};
