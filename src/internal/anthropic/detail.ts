/**
 * What the Anthropic format keeps in a canonical block's `detail`, under `anthropic`, and writes
 * back: a text block's `citations` and a tool call's `caller` (who made it, when it was not the
 * model directly). Both are read only when they have the shape the API gives them.
 *
 * @internal
 */
import type * as Json from "../../Json.js"
import { isRecord } from "../plain.js"

const anthropicOf = (detail: Json.JsonObject | null | undefined): { readonly [key: string]: unknown } | undefined => {
  const anthropic = detail?.["anthropic"]
  return isRecord(anthropic) ? anthropic : undefined
}

/** The citations a text block's detail keeps: an array of JSON objects. */
export const citations = (detail: Json.JsonObject | null | undefined): ReadonlyArray<Json.JsonObject> | undefined => {
  const citations = anthropicOf(detail)?.["citations"]
  return Array.isArray(citations) && citations.every(isRecord)
    ? citations as ReadonlyArray<Json.JsonObject>
    : undefined
}

/** The caller a tool call's detail keeps: a JSON object. */
export const caller = (detail: Json.JsonObject | null | undefined): Json.JsonObject | undefined => {
  const caller = anthropicOf(detail)?.["caller"]
  return isRecord(caller) ? caller as Json.JsonObject : undefined
}

/** `{anthropic: fields}`, or `null` when there are none. */
export const of = (fields: { readonly [key: string]: Json.JsonValue | undefined }): Json.JsonObject | null => {
  const kept: { [key: string]: Json.JsonValue } = {}
  let any = false
  for (const key of Object.keys(fields)) {
    const value = fields[key]
    if (value !== undefined) {
      kept[key] = value
      any = true
    }
  }
  return any ? { anthropic: kept } : null
}
