/**
 * Parquet input (`convert --parquet`, or a `.parquet` file): each row is a record, its columns the
 * record's keys, read with `hyparquet` one row group at a time. Memory holds the file's footer and
 * one row group (its column chunks as stored, then its rows as JS values), whatever the file's size;
 * a dataset written with very large row groups costs that much.
 *
 * Values become JSON as they would be written by hand: a 64-bit integer is a number when it is a
 * safe integer and a decimal string otherwise (never rounded), bytes that are not text are base64,
 * dates ISO 8601 strings. Pages compressed with Snappy (the usual default), gzip or Brotli are read;
 * another codec (zstd, LZ4) is an error that names it.
 *
 * @internal
 */
import { parquetMetadataAsync, parquetReadObjects } from "hyparquet"
import type { AsyncBuffer, Compressors } from "hyparquet"
import * as fs from "node:fs"
import * as zlib from "node:zlib"

/** A file as hyparquet reads it: byte ranges on demand. */
const fileBuffer = async (handle: fs.promises.FileHandle): Promise<AsyncBuffer> => {
  const { size } = await handle.stat()
  return {
    byteLength: size,
    slice: async (start, end) => {
      const length = (end ?? size) - start
      const buffer = new ArrayBuffer(length)
      let read = 0
      while (read < length) {
        const { bytesRead } = await handle.read(
          new Uint8Array(buffer, read, length - read),
          0,
          length - read,
          start + read
        )
        if (bytesRead === 0) break
        read += bytesRead
      }
      return buffer
    }
  }
}

const compressors: Compressors = {
  GZIP: (input) => new Uint8Array(zlib.gunzipSync(input)),
  BROTLI: (input) => new Uint8Array(zlib.brotliDecompressSync(input))
}

/** A value of a row as JSON. */
const json = (value: unknown): unknown => {
  if (typeof value === "bigint") {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  }
  if (value instanceof Uint8Array) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64")
  }
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(json)
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = json(v)
    return out
  }
  return value === undefined ? null : value
}

/** The rows of `file`, one row group at a time, with the number (1-based) of the group's first row. */
export async function* rows(
  file: string
): AsyncGenerator<{ readonly first: number; readonly records: ReadonlyArray<unknown>; readonly bytes: number }> {
  const handle = await fs.promises.open(file, "r")
  try {
    const buffer = await fileBuffer(handle)
    const metadata = await parquetMetadataAsync(buffer)
    let first = 0
    for (const group of metadata.row_groups) {
      const count = Number(group.num_rows)
      const records = await parquetReadObjects({
        file: buffer,
        metadata,
        rowStart: first,
        rowEnd: first + count,
        compressors
      })
      yield { first: first + 1, records: records.map(json), bytes: Number(group.total_byte_size) }
      first += count
    }
  } finally {
    await handle.close()
  }
}
