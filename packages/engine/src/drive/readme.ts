import type { ShipmentInfo } from '@brickpost/manifest';

/**
 * README.txt of a shipment: what the drive is, how to check it, and how to
 * recover the files with standard tools alone.
 */
export function driveReadme(i: ShipmentInfo): string {
  return `brickpost drive README (format ${i.format})
=========================================

This folder is one brickpost shipment: a BagIt bag (RFC 8493).

  Shipment:   ${i.shipment}
  Dataset:    ${i.dataset} (id ${i.datasetId}), shipment number ${i.seq}${i.parent ? `, follows ${i.parent}` : ''}
  Label:      ${i.label || '(none)'}
  Publisher:  ${i.publisher}, minisign key ${i.publisherKey}
  Created:    ${i.created}
  Content:    ${i.files} files, ${i.bytes} bytes, in ${i.packs} encrypted packs

With brickpost
--------------
  brickpost trust add <publisher's minisign public key>
  brickpost verify <drive>           check signature and fixity (no key needed)
  brickpost verify --deep <drive>    also decrypt and re-hash every chunk
  brickpost ingest <drive> <dest>    verify and copy the files into <dest>

With standard tools only
------------------------
1. Check the publisher's signature of the tag manifest (minisign):
     minisign -V -P <publisher public key RW...> -m tagmanifest-sha256.txt
2. Check fixity of every file (the tag manifest covers the manifests):
     sha256sum -c tagmanifest-sha256.txt && sha256sum -c manifest-sha256.txt
   or: bagit.py --validate .
3. Decrypt and decompress the file list (needs your age identity file):
     age -d -i key.txt data/manifest.age | zstd -d > manifest.ndjson
   Each line is a JSON record. A "file" record lists its chunks as
   [chunk id, pack number, offset, stored length, length]; "more" records
   continue the chunk list of the file before them.
4. Decrypt and decompress a pack:
     age -d -i key.txt data/packs/000/000000.age > pack.zst
   The pack is a sequence of zstd frames. Chunk [id, p, off, len, n] of a file
   is the frame of "len" bytes at byte "off" of pack p's decrypted content;
   "zstd -d" turns it into the chunk's n bytes. A file is its chunks in order.
   For example, to extract one chunk:
     tail -c +$((off + 1)) pack.zst | head -c len | zstd -d
   "age -d ... | zstd -d" on a whole pack gives all its chunks back to back.

FORMAT.md next to this file is the complete specification.
`;
}
