import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from "node:fs";

/**
 * Writes `file` until its filesystem refuses another byte (ENOSPC), then gives
 * back `room` bytes of it: a disk as full as the test needs.
 */
export function fillDisk(file: string, room = 0): void {
  const fd = openSync(file, "w");
  try {
    for (const size of [1 << 16, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
          break;
        }
      }
    }
    if (room > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - room));
  } finally {
    closeSync(fd);
  }
}
