// POSIX ACLs between Linux's xattr form and the manifest's text form (io/acl.ts).
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { aclText, aclValue } from '../src/io/acl.js';

test('an ACL with named entries survives text → xattr value → text', () => {
  const text = 'user::rw-,user:1000:r--,user:1001:rwx,group::r--,group:50:-w-,mask::rwx,other::---';
  assert.equal(aclText(aclValue(text), false), text);
});

test('a minimal access ACL is not recorded; a minimal default ACL is', () => {
  const minimal = 'user::rwx,group::r-x,other::r-x';
  assert.equal(aclText(aclValue(minimal), false), null);
  assert.equal(aclText(aclValue(minimal), true), minimal);
});

test('values that are not a version 2 ACL are refused', () => {
  assert.throws(() => aclText(Buffer.from([1, 0, 0, 0]), false), /not a version 2/);
  assert.throws(() => aclText(Buffer.alloc(7), false), /not a version 2/);
  const bad = aclValue('user::rw-,user:7:r--,group::r--,mask::r--,other::---');
  bad.writeUInt16LE(0x40, 4 + 8);
  assert.throws(() => aclText(bad, false), /tag 64/);
});
