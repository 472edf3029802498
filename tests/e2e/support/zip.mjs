// A small .zip writer for tests and benchmarks: entries deflated (raw DEFLATE, zip's method 8)
// or stored, with their CRC-32 and sizes, then the central directory and its end record; written
// straight to a file, one entry at a time.
import fs from 'node:fs';
import zlib from 'node:zlib';

/**
 * Write the .zip `path` of `entries` ({ name, data: Buffer | string, store?: bool }), one entry
 * held at a time. Returns the archive's size in bytes.
 */
export function writeZip(path, entries) {
  const fd = fs.openSync(path, 'w');
  let at = 0;
  const write = (buf) => {
    fs.writeSync(fd, buf);
    at += buf.length;
  };
  const central = [];
  for (const e of entries) {
    const data = Buffer.from(e.data);
    const stored = e.store ? data : zlib.deflateRawSync(data, { level: 1 });
    const crc = zlib.crc32(data);
    const name = Buffer.from(e.name, 'utf8');
    const method = e.store ? 0 : 8;
    const local = at;
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0x0800, 6); // names in UTF-8
    head.writeUInt16LE(method, 8);
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(stored.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(name.length, 26);
    write(head);
    write(name);
    write(stored);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(method, 10);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(stored.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(local, 42);
    central.push(Buffer.concat([dir, name]));
  }
  const dirAt = at;
  const dir = Buffer.concat(central);
  write(dir);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(dirAt, 16);
  write(end);
  fs.closeSync(fd);
  return at;
}

/** Where entry `name`'s stored data starts and how long it is, in the archive `bytes`. */
export function entryData(bytes, name) {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = bytes.readUInt32LE(end + 16);
  while (bytes.readUInt32LE(at) === 0x02014b50) {
    const n = bytes.readUInt16LE(at + 28);
    const extra = bytes.readUInt16LE(at + 30);
    const comment = bytes.readUInt16LE(at + 32);
    if (bytes.toString('utf8', at + 46, at + 46 + n) === name) {
      const local = bytes.readUInt32LE(at + 42);
      const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
      return { start, length: bytes.readUInt32LE(at + 20) };
    }
    at += 46 + n + extra + comment;
  }
  throw new Error(`no entry ${name}`);
}
