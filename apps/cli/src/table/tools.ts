/** The commands of the planner, the recovery of this home's and a destination's databases, and the UI, in help order. */
import { json, type CommandSpec } from './spec.js';

export const TOOLS_COMMANDS: CommandSpec[] = [
  {
    name: 'plan',
    summary: 'ship drives or send over the network? times, cross-over size and a recommendation',
    args: ['SIZE'],
    min: 1,
    options: [
      { name: 'link', type: 'string', value: 'RATE', help: 'network bandwidth, e.g. 100Mbit, 1Gbit/s, 10Gbps (default 100Mbit)' },
      { name: 'rtt', type: 'string', value: 'TIME', help: 'round-trip time, e.g. 80ms (default 80ms)' },
      { name: 'window', type: 'string', value: 'SIZE', help: 'TCP window of each stream, e.g. 64KiB (default 4MiB)' },
      { name: 'streams', type: 'string', value: 'N', help: 'parallel TCP streams (default 4)' },
      {
        name: 'drive-speed',
        type: 'string',
        value: 'RATE',
        help: 'write and read speed of one drive, e.g. 200MB/s (default: measured by your recent packs, else 200MB/s)',
      },
      { name: 'drives', type: 'string', value: 'N', help: 'drives written and read in parallel (default 1)' },
      { name: 'courier', type: 'string', value: 'TIME', help: 'door-to-door courier time, e.g. 24h, 2d (default 24h)' },
      { name: 'drive-cost', type: 'string', value: 'AMOUNT', help: 'price of one drive, for the cost of shipping' },
      { name: 'courier-cost', type: 'string', value: 'AMOUNT', help: 'price of the courier, for the cost of shipping' },
      { name: 'network-cost-per-tb', type: 'string', value: 'AMOUNT', help: 'network transfer price per TB, for the cost of sending' },
      json('print {choice, networkSeconds, shipSeconds, recommendation, inputs, bound, crossoverBytes, curve, …}'),
    ],
    json: 'document',
    details:
      'SIZE like 10TB, 1.5TiB, 500GB: decimal units are SI (TB = 10^12 bytes), binary\nones IEC (TiB = 2^40); a bare 500G is binary. Network time is SIZE over the\nthroughput of the streams: each moves B / (1 + R*B/D) for link B, round trip R\nand window D, all together at most B. Ship time is writing the drives in\nparallel, the courier, and reading them in parallel.',
    load: () => import('../commands/plan.js'),
  },
  {
    name: 'catalog recover',
    summary: "recover this home's damaged catalog: keep what can be read, rebuild the rest",
    args: [],
    min: 0,
    options: [
      {
        name: 'dest',
        type: 'string',
        multiple: true,
        value: 'DEST-DIR',
        help: 'a destination this home ingested into: its state rebuilds the records of those ingests; repeatable',
      },
      {
        name: 'drive',
        type: 'string',
        multiple: true,
        value: 'DRIVE-DIR',
        help: 'a drive with shipments you packed or handled: rebuilds their records and custody logs; repeatable',
      },
      { name: 'name', type: 'string', value: 'NAME', help: 'your display name, when the catalog lost it' },
      { name: 'force', type: 'boolean', help: 'set the catalog aside and rebuild it even when it checks out intact' },
      json('print {file, intact, setAside, kept: [{table, kept, lost, error}], rebuilt: [{what, from}], lost: [{what, meaning}]}'),
    ],
    json: 'document',
    details:
      "For a catalog brickpost reports as damaged (exit 5, DATABASE_DAMAGED). The\ndamaged file is set aside, never deleted (catalog.sqlite.damaged-TIME, with its\n-wal and -shm files), a new catalog is made, and every row that can still be\nread is copied into it, table by table. Then your key files give back your own\ntrusted key, each destination (--dest, and those the old catalog still names)\nthe records of what was ingested into it with its dataset's key, and each\ndrive (--drive) the shipments you packed on it and its custody logs. The\nsummary lists what was kept, what was rebuilt and from what, and what was lost\nand what that means (other keys you trusted: trust them again; receipts:\nimport them again). An intact catalog is not set aside: what --dest, --drive\nand --name give is added to it.",
    load: () => import('../commands/recover.js'),
  },
  {
    name: 'journal recover',
    summary: "recover a destination's damaged journal: keep what can be read",
    args: ['DEST-DIR'],
    min: 1,
    options: [
      { name: 'force', type: 'boolean', help: 'set the journal aside and rebuild it even when it checks out intact' },
      json('print {file, intact, setAside, kept, rebuilt, lost, pending}'),
    ],
    json: 'document',
    details:
      "For a journal brickpost reports as damaged (exit 5, DATABASE_DAMAGED). The\ndestination's files and state are not touched. The damaged journal is set\naside (journal.sqlite.damaged-TIME), a new one is made, and what can still be\nread is kept: a commit or rollback in progress (only with all of its steps:\nthe next ingest or rollback finishes it) and the steps of applied shipments.\nWhere steps are lost, rollback can no longer go back past those shipments\n(their replaced files stay in DEST/.brickpost/undo); ingesting goes on as\nbefore. The summary says what was kept and lost, and whether a commit or\nrollback was in progress.",
    load: () => import('../commands/recover.js'),
  },
  {
    name: 'ui',
    summary: 'open the desktop app in your browser (served on 127.0.0.1 only)',
    args: [],
    min: 0,
    options: [
      { name: 'port', type: 'string', value: 'N', help: 'the port to listen on (default: a free one)' },
      { name: 'no-open', type: 'boolean', help: 'do not start a browser; only print the link' },
      json('print {url, port, token}'),
    ],
    json: 'document',
    details:
      'Prints a link with a random access token: open it in a browser on this\nmachine. Every request without the token (or the cookie the first page load\nsets) is refused, the page included. A browser is started when there is a\ndisplay and a terminal, unless --no-open or --json. Runs until Ctrl-C.',
    load: () => import('../commands/ui.js'),
  },
];
