/**
 * The machine under the crash-test file system: a disk and its page cache, after SQLite's
 * crash-test VFS (src/test6.c). Every file has durable content and current content; every
 * folder has durable entries and current entries. Changes reach the current state at once and
 * the durable state only when synced: a file's writes by an fsync of that file called after
 * them (not those made while it runs: several writers sharing one fsync is group commit only for
 * the bytes written before it), a folder's entries
 * (files created, renamed, removed in it; folders made in it) by fsync of that folder. Nothing
 * else is implied: a synced file whose name was never synced into its folder may vanish. At a
 * power cut a file keeps a prefix of its unsynced writes, or its changed 4 KiB pages (or 512-byte
 * sectors) in any order, as a disk that reorders its writes does (`powerCut` says how).
 */

/** A file of a disk image. Two names holding the same object are hard links to one file. */
export interface ImageFile {
  readonly kind: 'file';
  readonly content: Buffer;
}

export interface ImageDirectory {
  readonly kind: 'directory';
  readonly entries: ReadonlyMap<string, ImageNode>;
}

export type ImageNode = ImageFile | ImageDirectory;

/** What a disk holds when the power comes back: a machine restarted from it sees only this. */
export interface DiskImage {
  readonly root: ImageDirectory;
  /** Files the cut wrote in page order and tore out of order (a later page kept, an earlier one lost), by path. */
  readonly tornOutOfOrder?: readonly string[];
}

/**
 * The units in which a power cut writes a file's unsynced changes, in any order: pages of the
 * page cache, or the disk's sectors (a page reaches a disk of 512-byte sectors as eight writes,
 * which a power cut tears as well).
 */
const UNIT_BYTES = [4096, 512] as const;
/** Share of the cuts of a file with unsynced changes that write it in page order rather than a prefix of its writes. */
const PAGE_ORDER_SHARE = 1 / 2;

type FileChange =
  | { readonly kind: 'write'; readonly offset: number; readonly data: Buffer }
  | { readonly kind: 'truncate'; readonly length: number };

type EntryChange =
  | { readonly kind: 'link'; readonly name: string; readonly node: Inode }
  | { readonly kind: 'unlink'; readonly name: string }
  | { readonly kind: 'rename'; readonly from: string; readonly to: string };

/** A file: what the disk holds, what the page cache holds, and the writes in between, in order. */
export class FileInode {
  readonly kind = 'file';
  durable: Buffer;
  current: Buffer;
  unsynced: FileChange[] = [];
  /** Changes made to the file since it was loaded from an image: the last `unsynced.length` of them are not durable yet. */
  changesMade = 0;
  /** Names in the current state of the disk, and open handles: the file takes space while either lasts. */
  links = 0;
  opens = 0;
  released = false;

  constructor(content: Buffer) {
    this.durable = content;
    this.current = content;
  }
}

/** A folder: its durable entries, its current entries, and the entry changes in between, in order. */
export class DirectoryInode {
  readonly kind = 'directory';
  durable: Map<string, Inode>;
  current: Map<string, Inode>;
  unsynced: EntryChange[] = [];

  constructor(entries: Map<string, Inode> = new Map()) {
    this.durable = entries;
    this.current = new Map(entries);
  }
}

export type Inode = FileInode | DirectoryInode;

function writeInto(content: Buffer, offset: number, data: Buffer): Buffer {
  const result = Buffer.alloc(Math.max(content.length, offset + data.length));
  content.copy(result);
  data.copy(result, offset);
  return result;
}

function truncated(content: Buffer, length: number): Buffer {
  if (length <= content.length) return Buffer.from(content.subarray(0, length));
  return Buffer.concat([content, Buffer.alloc(length - content.length)]);
}

function applyFileChange(content: Buffer, change: FileChange): Buffer {
  return change.kind === 'write'
    ? writeInto(content, change.offset, change.data)
    : truncated(content, change.length);
}

function applyEntryChange(entries: Map<string, Inode>, change: EntryChange): void {
  if (change.kind === 'link') entries.set(change.name, change.node);
  else if (change.kind === 'unlink') entries.delete(change.name);
  else {
    const node = entries.get(change.from);
    entries.delete(change.from);
    if (node) entries.set(change.to, node);
  }
}

/**
 * How many of `count` unsynced changes reach the disk at a power cut. The extremes (none, all)
 * are drawn more often than a uniform draw would: they are where a missing fsync shows.
 */
function keptChanges(count: number, random: () => number): number {
  if (count === 0) return 0;
  const draw = random();
  if (draw < 0.3) return 0;
  if (draw < 0.6) return count;
  return Math.floor(random() * (count + 1));
}

/** A disk with its page cache. One machine; processes come and go over it (crash-fs.ts). */
export class CrashDisk {
  readonly root: DirectoryInode;
  #usedBytes = 0;

  /**
   * A machine starting from `image` (everything in it durable), or from an empty disk; `state`
   * is for `clone` only.
   */
  constructor(image?: DiskImage, state?: { readonly root: DirectoryInode; readonly usedBytes: number }) {
    if (state) {
      this.root = state.root;
      this.#usedBytes = state.usedBytes;
      return;
    }
    const built = new Map<ImageNode, Inode>();
    const build = (node: ImageNode): Inode => {
      const known = built.get(node);
      if (known) return known;
      if (node.kind === 'file') {
        const file = new FileInode(node.content);
        built.set(node, file);
        this.#usedBytes += node.content.length;
        return file;
      }
      const directory = new DirectoryInode();
      built.set(node, directory);
      for (const [name, child] of node.entries) {
        const inode = build(child);
        if (inode.kind === 'file') inode.links += 1;
        directory.durable.set(name, inode);
        directory.current.set(name, inode);
      }
      return directory;
    };
    this.root = image ? (build(image.root) as DirectoryInode) : new DirectoryInode();
  }

  /** Another machine in the very same state, page cache included: to try a future twice. */
  clone(): CrashDisk {
    const copies = new Map<Inode, Inode>();
    const copyOf = <T extends Inode>(node: T): T => {
      const known = copies.get(node);
      if (known) return known as T;
      if (node.kind === 'file') {
        const file = new FileInode(node.durable);
        copies.set(node, file);
        file.current = node.current;
        file.unsynced = [...node.unsynced];
        file.changesMade = node.changesMade;
        file.links = node.links;
        file.opens = node.opens;
        file.released = node.released;
        return file as T;
      }
      const directory = new DirectoryInode();
      copies.set(node, directory);
      directory.durable = new Map([...node.durable].map(([name, child]) => [name, copyOf(child)]));
      directory.current = new Map([...node.current].map(([name, child]) => [name, copyOf(child)]));
      directory.unsynced = node.unsynced.map((change) =>
        change.kind === 'link' ? { ...change, node: copyOf(change.node) } : change,
      );
      return directory as T;
    };
    return new CrashDisk(undefined, { root: copyOf(this.root), usedBytes: this.#usedBytes });
  }

  /** Bytes held by files that still have a name or an open handle. */
  get usedBytes(): number {
    return this.#usedBytes;
  }

  write(file: FileInode, offset: number, data: Buffer): void {
    const before = file.current.length;
    file.current = writeInto(file.current, offset, data);
    file.unsynced.push({ kind: 'write', offset, data: Buffer.from(data) });
    file.changesMade += 1;
    this.#usedBytes += file.current.length - before;
  }

  truncate(file: FileInode, length: number): void {
    const before = file.current.length;
    file.current = truncated(file.current, length);
    file.unsynced.push({ kind: 'truncate', length });
    file.changesMade += 1;
    this.#usedBytes += file.current.length - before;
  }

  /** What a sync of `file` called now makes durable: every change made to it so far (for `syncFile`). */
  syncPoint(file: FileInode): number {
    return file.changesMade;
  }

  /**
   * fsync/fdatasync: the file's changes up to `through` (its `syncPoint` when the sync was
   * called; all of them by default) are now durable. Changes made while a sync runs are not
   * covered by it: a real fdatasync may or may not write them, so only the next sync promises to.
   */
  syncFile(file: FileInode, through: number = file.changesMade): void {
    const covered = file.unsynced.length - (file.changesMade - through);
    if (covered <= 0) return;
    if (covered >= file.unsynced.length) {
      file.durable = file.current;
      file.unsynced = [];
      return;
    }
    file.durable = file.unsynced.slice(0, covered).reduce(applyFileChange, file.durable);
    file.unsynced = file.unsynced.slice(covered);
  }

  /** Gives `node` the name `name` in `directory`, replacing what had it. */
  link(directory: DirectoryInode, name: string, node: Inode): void {
    const replaced = directory.current.get(name);
    directory.current.set(name, node);
    directory.unsynced.push({ kind: 'link', name, node });
    if (node.kind === 'file') node.links += 1;
    if (replaced) this.#forget(replaced);
  }

  unlink(directory: DirectoryInode, name: string): void {
    const node = directory.current.get(name);
    if (!node) return;
    directory.current.delete(name);
    directory.unsynced.push({ kind: 'unlink', name });
    this.#forget(node);
  }

  /** A rename within one folder: one entry change, so a power cut keeps either name, never both. */
  rename(directory: DirectoryInode, from: string, to: string): void {
    const node = directory.current.get(from);
    if (!node || from === to) return;
    const replaced = directory.current.get(to);
    directory.current.delete(from);
    directory.current.set(to, node);
    directory.unsynced.push({ kind: 'rename', from, to });
    if (replaced) this.#forget(replaced);
  }

  /** fsync of a folder: its entries, as the page cache holds them, are now durable. */
  syncDirectory(directory: DirectoryInode): void {
    directory.durable = new Map(directory.current);
    directory.unsynced = [];
  }

  open(file: FileInode): void {
    file.opens += 1;
  }

  close(file: FileInode): void {
    file.opens -= 1;
    this.#releaseIfUnused(file);
  }

  #forget(node: Inode): void {
    if (node.kind === 'directory') return;
    node.links -= 1;
    this.#releaseIfUnused(node);
  }

  #releaseIfUnused(file: FileInode): void {
    if (file.links > 0 || file.opens > 0 || file.released) return;
    file.released = true;
    this.#usedBytes -= file.current.length;
  }

  /**
   * The disk as the power comes back: durable state, plus for each file with unsynced changes
   * either a prefix of its unsynced writes (the next one possibly torn: part of it, or zeros
   * where the size reached the disk but the data did not), or its pages written in any order
   * (each page that changed reaches the disk or not, and the size is the durable or the
   * current one), plus for each folder a prefix of its unsynced entry changes. Only what can be
   * reached from the root remains. `random` decides, so a seed replays the same cut.
   */
  powerCut(random: () => number): DiskImage {
    const imaged = new Map<Inode, ImageNode>();
    const tornOutOfOrder: string[] = [];
    const image = (node: Inode, path: string): ImageNode => {
      const known = imaged.get(node);
      if (known) return known;
      if (node.kind === 'file') {
        const cut = this.#contentAfterCut(node, random);
        if (cut.outOfOrder) tornOutOfOrder.push(path);
        const file: ImageFile = { kind: 'file', content: cut.content };
        imaged.set(node, file);
        return file;
      }
      const entries = new Map<string, ImageNode>();
      const directory: ImageDirectory = { kind: 'directory', entries };
      imaged.set(node, directory);
      const survived = new Map(node.durable);
      for (const change of node.unsynced.slice(0, keptChanges(node.unsynced.length, random))) {
        applyEntryChange(survived, change);
      }
      for (const [name, child] of survived) entries.set(name, image(child, `${path}/${name}`));
      return directory;
    };
    return { root: image(this.root, '') as ImageDirectory, tornOutOfOrder };
  }

  #contentAfterCut(file: FileInode, random: () => number): { content: Buffer; outOfOrder: boolean } {
    if (file.unsynced.length > 0 && random() < PAGE_ORDER_SHARE) return pagesAfterCut(file, random);
    return { content: prefixAfterCut(file, random), outOfOrder: false };
  }
}

/** A prefix of the file's unsynced changes, the next write possibly torn from the front. */
function prefixAfterCut(file: FileInode, random: () => number): Buffer {
  const kept = keptChanges(file.unsynced.length, random);
  let content = file.durable;
  for (const change of file.unsynced.slice(0, kept)) content = applyFileChange(content, change);
  const next = file.unsynced[kept];
  if (next?.kind === 'write' && next.data.length > 1 && random() < 0.5) {
    // A torn write: its first bytes reached the disk, often all but the very last one.
    const length = random() < 0.3 ? next.data.length - 1 : 1 + Math.floor(random() * (next.data.length - 1));
    const part = random() < 0.25 ? Buffer.alloc(length) : next.data.subarray(0, length);
    content = writeInto(content, next.offset, part);
  }
  return content;
}

/** Bytes `start` to `end` of `content`, zeros beyond its end. */
function pageOf(content: Buffer, start: number, end: number): Buffer {
  const page = Buffer.alloc(end - start);
  if (start < content.length) content.copy(page, 0, start, Math.min(end, content.length));
  return page;
}

/**
 * The file's pages (or sectors) written in any order: of those whose current content differs
 * from the durable one, some reach the disk and the others do not — each on its own, or, as
 * often, the later ones only (the case a prefix of the writes never shows). A page not reached
 * reads as its durable content (zeros beyond the durable size). The size is the durable or,
 * more often, the current one.
 */
function pagesAfterCut(file: FileInode, random: () => number): { content: Buffer; outOfOrder: boolean } {
  const unit = UNIT_BYTES[random() < 0.5 ? 0 : 1];
  const size = random() < 0.25 ? file.durable.length : file.current.length;
  const content = pageOf(file.durable, 0, size);
  const changed: number[] = [];
  for (let start = 0; start < size; start += unit) {
    const end = Math.min(start + unit, size);
    if (!pageOf(file.current, start, end).equals(content.subarray(start, end))) changed.push(start);
  }
  const laterOnly = random() < 0.5;
  const firstKept = 1 + Math.floor(random() * Math.max(1, changed.length - 1));
  let lostBefore = false;
  let outOfOrder = false;
  for (const [index, start] of changed.entries()) {
    if (laterOnly ? index >= firstKept : random() < 0.5) {
      pageOf(file.current, start, Math.min(start + unit, size)).copy(content, start);
      outOfOrder ||= lostBefore;
    } else lostBefore = true;
  }
  return { content, outOfOrder };
}
