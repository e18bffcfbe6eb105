/** Thrown when a CLI command cannot read or write a file the user named; says which file and why, in words. */
export class FileAccessError extends Error {
  override readonly name = 'FileAccessError';
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'there is no such file or folder',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
};

/**
 * The sentence for a failed read or write of `path` the user named (`report --html`, `members import`): a
 * bare `ENOENT: no such file or directory, open …` or `EISDIR` told them nothing.
 * Errors without a system code are returned unchanged.
 *
 * @param action - what was attempted, e.g. `read the CSV file` or `write the report to`.
 */
export function toFileAccessError(err: unknown, action: string, path: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') return err;
  const missingFolder = code === 'ENOENT' && action.startsWith('write');
  const reason = missingFolder ? 'its folder does not exist' : (REASONS[code] ?? code);
  return new FileAccessError(`cannot ${action} ${path}: ${reason}`);
}
