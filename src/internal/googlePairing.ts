/**
 * The last step of Google decoding, shared by the fast walk and the Schema path: pairing function
 * responses with their calls, settling call ids, and building the messages.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Block from "../Block.js"
import type * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import type * as Json from "../Json.js"
import * as Message from "../Message.js"

/** A function call waiting for its final id. */
export interface Call {
  readonly _tag: "Call"
  readonly c: number
  readonly p: number
  readonly name: string
  readonly input: Json.JsonObject
  readonly explicitId: string | undefined
  adopted: string | undefined
  answered: boolean
  id: string
}

/** A function response waiting for its call. */
export interface Response {
  readonly _tag: "Response"
  readonly c: number
  readonly p: number
  /** where the part sits: `[...root, c, "parts", p, key]` (built only for an error) */
  readonly root: ConversionError.Path
  readonly key: string
  readonly name: string
  readonly id: string | undefined
  readonly blocks: ReadonlyArray<Block.ContentBlock>
  readonly isError: boolean
  call: Call | undefined
}

/** One content before pairing: its blocks, with calls and responses still to be settled. */
export type Draft =
  | { readonly role: "user"; readonly items: ReadonlyArray<Block.ContentBlock | Response> }
  | { readonly role: "assistant"; readonly items: ReadonlyArray<Block.ContentBlock | Block.ReasoningBlock | Call> }

// -----------------------------------------------------------------------------
// pairing
// -----------------------------------------------------------------------------

const effectiveId = (call: Call): string | undefined => call.explicitId ?? call.adopted

/** The calls of one function name in document order, with cursors past the calls already answered. */
interface Group {
  readonly calls: Array<Call>
  /** every call before this index is answered */
  unanswered: number
  /** every call before this index is answered or has an id */
  unansweredWithoutId: number
}

/** How many of the calls (in document order) sit in contents before `c`. */
const before = (calls: ReadonlyArray<Call>, c: number): number => {
  let lo = 0
  let hi = calls.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (calls[mid]!.c < c) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The call a response pairs with by name: the earliest unanswered call before it, else the latest
 * call before it, else the first call after it; only calls without an id when `withoutId`.
 */
const byName = (group: Group, c: number, withoutId: boolean): Call | undefined => {
  const { calls } = group
  let first: Call | undefined
  if (withoutId) {
    while (
      group.unansweredWithoutId < calls.length &&
      (calls[group.unansweredWithoutId]!.answered || !isEligible(calls[group.unansweredWithoutId]!, withoutId))
    ) group.unansweredWithoutId++
    first = calls[group.unansweredWithoutId]
  } else {
    while (group.unanswered < calls.length && calls[group.unanswered]!.answered) group.unanswered++
    first = calls[group.unanswered]
  }
  if (first !== undefined && first.c < c) return first
  const end = before(calls, c)
  for (let i = end - 1; i >= 0; i--) if (isEligible(calls[i]!, withoutId)) return calls[i]
  for (let i = end; i < calls.length; i++) if (isEligible(calls[i]!, withoutId)) return calls[i]
  return undefined
}

// (no closures in these loops: under tsx, which keeps function names, each one costs an allocation
// and a `defineProperty`)
const isEligible = (call: Call, withoutId: boolean): boolean => !withoutId || effectiveId(call) === undefined

const named = (calls: ReadonlyArray<Call>, name: string): Call | undefined => {
  for (let i = 0; i < calls.length; i++) if (calls[i]!.name === name) return calls[i]
  return undefined
}

const unmatched = (response: Response, reason: string) =>
  Either.left(
    new ConversionError.UnmatchedToolResult({
      format: "google",
      path: [...response.root, response.c, "parts", response.p, response.key],
      messageIndex: response.c,
      blockIndex: response.p,
      toolCallId: response.id ?? "",
      reason
    })
  )

/**
 * Pair every response with a call: by id when a call carries that id (the names must agree), else by
 * name (see {@link byName}). A response with an id pairs by name only with a call that has no id,
 * and that call takes the response's id.
 */
export const pair = (
  calls: ReadonlyArray<Call>,
  responses: ReadonlyArray<Response>
): Either.Either<void, ConversionError.UnmatchedToolResult> => {
  const groups = new Map<string, Group>()
  const withId = new Map<string, Array<Call>>()
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    const group = groups.get(call.name)
    if (group === undefined) groups.set(call.name, { calls: [call], unanswered: 0, unansweredWithoutId: 0 })
    else group.calls.push(call)
    if (call.explicitId !== undefined) {
      const same = withId.get(call.explicitId)
      if (same === undefined) withId.set(call.explicitId, [call])
      else same.push(call)
    }
  }
  for (let r = 0; r < responses.length; r++) {
    const response = responses[r]!
    const sameId = response.id === undefined ? undefined : withId.get(response.id)
    if (sameId !== undefined) {
      const match = named(sameId, response.name)
      if (match === undefined) {
        return unmatched(
          response,
          `function_call ${JSON.stringify(response.id)} is named ${
            JSON.stringify(sameId[0]!.name)
          }, but this function_response names ${JSON.stringify(response.name)}`
        )
      }
      match.answered = true
      response.call = match
      continue
    }
    const group = groups.get(response.name)
    const match = group === undefined ? undefined : byName(group, response.c, response.id !== undefined)
    if (match === undefined) {
      return unmatched(
        response,
        response.id === undefined
          ? `no function_call in the transcript is named ${JSON.stringify(response.name)}`
          : `no function_call in the transcript has this id, and none named ${
            JSON.stringify(response.name)
          } is without an id`
      )
    }
    match.answered = true
    if (response.id !== undefined && effectiveId(match) === undefined) {
      match.adopted = response.id
      withId.set(response.id, [match])
    }
    response.call = match
  }
  return Either.right(undefined)
}

/** Settle every call's id: its own, the one it adopted, or `call_<content>_<part>` made unique. */
export const assignIds = (calls: ReadonlyArray<Call>, taken: Set<string>): void => {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    const known = effectiveId(call)
    if (known !== undefined) {
      call.id = known
      continue
    }
    const base = `call_${call.c}_${call.p}`
    let id = base
    for (let n = 1; taken.has(id); n++) id = `${base}_${n}`
    taken.add(id)
    call.id = id
  }
}

/**
 * Pair the responses with their calls, settle the ids, and append one message per draft to
 * `messages`. `taken` holds every id the transcript itself uses.
 */
export const settle = (
  messages: Array<Message.Message>,
  drafts: ReadonlyArray<Draft>,
  calls: ReadonlyArray<Call>,
  responses: ReadonlyArray<Response>,
  taken: Set<string>
): Either.Either<Conversation.Conversation, ConversionError.UnmatchedToolResult> => {
  const paired = pair(calls, responses)
  if (Either.isLeft(paired)) return Either.left(paired.left)
  assignIds(calls, taken)
  for (let d = 0; d < drafts.length; d++) {
    const draft = drafts[d]!
    messages.push(
      draft.role === "user" ? Message.user(userBlocks(draft.items)) : Message.assistant(assistantBlocks(draft.items))
    )
  }
  return Either.right(messages)
}

const userBlocks = (items: ReadonlyArray<Block.ContentBlock | Response>): Array<Message.UserBlock> => {
  const blocks: Array<Message.UserBlock> = new Array(items.length)
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!
    // `pair` has given every response its call
    blocks[k] = "_tag" in item ? Block.toolResult(item.call!.id, item.blocks, { isError: item.isError }) : item
  }
  return blocks
}

const assistantBlocks = (
  items: ReadonlyArray<Block.ContentBlock | Block.ReasoningBlock | Call>
): Array<Message.AssistantBlock> => {
  const blocks: Array<Message.AssistantBlock> = new Array(items.length)
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!
    blocks[k] = "_tag" in item ? Block.toolCall(item.id, item.name, item.input) : item
  }
  return blocks
}
