import type { UserFiles } from '../../main/files/user-files';
import type { FileSystem } from '../../main/store/file-system';

/**
 * The files of an in-memory file system (a test's originals) as the person's files a BlobStore
 * reads: each opened by reading it whole, each path its own file (no links in memory), so a
 * seeded run replays the same operations.
 */
export function originalsIn(fs: Pick<FileSystem, 'readFile'>): Pick<UserFiles, 'open'> {
  return {
    async open(path) {
      const content = await fs.readFile(path);
      let offset = 0;
      return {
        size: content.length,
        identity: path,
        read: (length) => {
          const chunk = Buffer.from(content.subarray(offset, offset + length));
          offset += chunk.length;
          return Promise.resolve(chunk);
        },
        close: () => Promise.resolve(),
      };
    },
  };
}
