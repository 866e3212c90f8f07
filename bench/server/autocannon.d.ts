/**
 * The part of autocannon 9's programmatic API that `bench/server/load.ts` uses (the package ships no
 * types, and `@types/autocannon` describes version 7).
 */
declare module "autocannon" {
  import type { EventEmitter } from "node:events"

  namespace autocannon {
    /** One connection of a run. */
    interface Client {
      /** Headers of this connection's requests, merged over the run's. */
      setHeaders(headers: Record<string, string>): void
    }

    interface Options {
      readonly url: string
      readonly method?: "GET" | "POST"
      readonly headers?: Record<string, string>
      readonly body?: string
      readonly connections?: number
      readonly pipelining?: number
      /** Seconds. */
      readonly duration?: number
      /** Seconds before a request counts as timed out. */
      readonly timeout?: number
      /** Called once for each connection as it is made. */
      readonly setupClient?: (client: Client) => void
    }

    interface Result {
      readonly errors: number
      readonly timeouts: number
      readonly non2xx: number
      readonly resets: number
    }

    interface Instance extends EventEmitter {
      on(
        event: "response",
        listener: (client: Client, statusCode: number, bytes: number, milliseconds: number) => void
      ): this
      stop(): void
    }
  }

  function autocannon(
    options: autocannon.Options,
    done: (error: Error | null, result: autocannon.Result) => void
  ): autocannon.Instance

  export = autocannon
}
