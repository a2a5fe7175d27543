import type Database from 'better-sqlite3';

/** Turns an error into the one to throw (fromSqliteError with the database's place). */
export type ErrorMap = (e: unknown) => unknown;

/** Statement methods that return the statement itself (the guarded one is returned instead). */
const CHAINING = new Set(['pluck', 'expand', 'raw', 'bind', 'safeIntegers']);

/**
 * The database `db` with every call that can reach the disk guarded:
 * whatever SQLite throws from the database's methods (exec, pragma,
 * prepare, transactions, backup…), from its statements (run, get, all,
 * iterate, and every step of an iteration) goes through `map` first, so
 * the catalog and the destination journal report a locked, full, failing
 * or damaged file by name wherever the query is written. Values and
 * non-function properties pass through; the result still is a
 * Database (instanceof holds).
 */
export function guardDatabase(db: Database.Database, map: ErrorMap): Database.Database {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(db, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      let f = cache.get(prop);
      if (f) return f;
      const fn = v as (...a: unknown[]) => unknown;
      if (prop === 'prepare') f = (...a: unknown[]) => guardStatement(call(fn, target, a, map) as Database.Statement, map);
      else if (prop === 'transaction') f = (body: (...a: unknown[]) => unknown) => guardTransaction(call(fn, target, [body], map) as Transaction, map);
      else f = (...a: unknown[]) => call(fn, target, a, map);
      cache.set(prop, f);
      return f;
    },
  });
}

type Transaction = ((...a: unknown[]) => unknown) & {
  deferred: (...a: unknown[]) => unknown;
  immediate: (...a: unknown[]) => unknown;
  exclusive: (...a: unknown[]) => unknown;
};

function call(fn: (...a: unknown[]) => unknown, self: unknown, args: unknown[], map: ErrorMap): unknown {
  try {
    return fn.apply(self, args);
  } catch (e) {
    throw map(e);
  }
}

function guardTransaction(t: Transaction, map: ErrorMap): Transaction {
  const wrap =
    (fn: (...a: unknown[]) => unknown) =>
    (...a: unknown[]) =>
      call(fn, undefined, a, map);
  return Object.assign(wrap(t), { deferred: wrap(t.deferred), immediate: wrap(t.immediate), exclusive: wrap(t.exclusive) });
}

function guardStatement(stmt: Database.Statement, map: ErrorMap): Database.Statement {
  const cache = new Map<PropertyKey, unknown>();
  const guarded: Database.Statement = new Proxy(stmt, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      let f = cache.get(prop);
      if (f) return f;
      const fn = v as (...a: unknown[]) => unknown;
      if (CHAINING.has(prop as string)) {
        f = (...a: unknown[]) => {
          call(fn, target, a, map);
          return guarded;
        };
      } else if (prop === 'iterate') f = (...a: unknown[]) => guardIterator(call(fn, target, a, map) as IterableIterator<unknown>, map);
      else f = (...a: unknown[]) => call(fn, target, a, map);
      cache.set(prop, f);
      return f;
    },
  });
  return guarded;
}

function guardIterator(it: IterableIterator<unknown>, map: ErrorMap): IterableIterator<unknown> {
  const g: IterableIterator<unknown> = {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- call() applies it to `it`
    next: (...a: [] | [undefined]) => call(it.next as (...x: unknown[]) => unknown, it, a, map) as IteratorResult<unknown>,
    // eslint-disable-next-line @typescript-eslint/unbound-method -- call() applies it to `it`
    return: (value?: unknown) => call(it.return as (...x: unknown[]) => unknown, it, [value], map) as IteratorResult<unknown>,
    [Symbol.iterator]: () => g,
  };
  return g;
}
