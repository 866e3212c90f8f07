/**
 * The load generator of `npm run bench:server`, in a process of its own so that it never shares an
 * event loop (or, when pinned, a core) with the server it measures. The benchmark forks it once and
 * sends it one {@link Job} at a time over IPC; it answers each with a {@link Sample}.
 *
 * A job is autocannon (9.0.0): a fixed number of keep-alive connections, each with one request in
 * flight at a time (no pipelining), for a fixed time. Each connection sends its own `X-Session-ID`
 * (the job's sessions, one per connection, in turn), as concurrent rollouts of an environment do.
 * Latency is timed here, per response, from autocannon's high-resolution timings (autocannon's own
 * histogram rounds to whole milliseconds).
 *
 * The process exits when the benchmark disconnects, however the benchmark ended.
 */
import autocannon from "autocannon"

/** One measurement: a route of a server under load. */
export interface Job {
  readonly url: string
  readonly method: "GET" | "POST"
  readonly headers: Record<string, string>
  readonly body: string | undefined
  /** The `X-Session-ID`s, one per connection, in turn. */
  readonly sessions: ReadonlyArray<string>
  readonly connections: number
  readonly seconds: number
}

/** What a job measured. */
export interface Sample {
  /** Responses with a 2xx status. */
  readonly ok: number
  /** Non-2xx responses, connection errors and timeouts. */
  readonly failed: number
  readonly seconds: number
  /** Milliseconds, over the 2xx responses. */
  readonly latency: { readonly p50: number; readonly p99: number }
}

/** The `q` quantile of sorted values (nearest rank). */
export const quantile = (sorted: ArrayLike<number>, q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!

const run = (job: Job): Promise<Sample> =>
  new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16)
    let ok = 0
    let failed = 0
    let next = 0
    const started = performance.now()
    const instance = autocannon({
      url: job.url,
      method: job.method,
      headers: job.headers,
      ...(job.body === undefined ? {} : { body: job.body }),
      connections: job.connections,
      pipelining: 1,
      duration: job.seconds,
      timeout: 10,
      setupClient: (client) => {
        const sid = job.sessions[next++ % job.sessions.length]
        if (sid !== undefined) client.setHeaders({ "x-session-id": sid })
      }
    }, (error, result) => {
      const seconds = (performance.now() - started) / 1000
      if (error !== null) return reject(error)
      const sorted = latencies.subarray(0, ok).sort()
      resolve({
        ok,
        failed: failed + result.errors + result.timeouts,
        seconds,
        latency: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) }
      })
    })
    instance.on("response", (_client, status, _bytes, milliseconds) => {
      if (status < 200 || status > 299) {
        failed++
        return
      }
      if (ok === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[ok++] = milliseconds
    })
  })

if (process.send !== undefined) {
  process.on("disconnect", () => process.exit(0))
  process.on("message", (job: Job) => {
    run(job).then(
      (sample) => process.send!({ _tag: "Sample", sample }),
      (error: unknown) => process.send!({ _tag: "Error", message: String(error) })
    )
  })
}
