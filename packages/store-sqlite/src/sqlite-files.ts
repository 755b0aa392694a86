/** A SQLite database file with the write-ahead log and shared-memory files WAL mode keeps beside it. */
export function withWalFiles(file: string): string[] {
  return ['', '-wal', '-shm'].map((suffix) => `${file}${suffix}`);
}
