/**
 * Every decode rewrites image data in base64url to standard base64 (src/internal/base64.ts): a
 * documented loss of every format's round trip, applied here once for the laws' `normalize`s.
 */
import type { Block, Conversation } from "openreward-effect"

const urlSafe = /^[A-Za-z0-9_-]*={0,2}$/

/** What decode makes of image data (an independent statement of the rule). */
export const standard = (data: string): string => {
  if (!/[-_]/.test(data) || !urlSafe.test(data)) return data
  const bare = data.replace(/=+$/, "")
  if (bare.length % 4 === 1) return data
  const body = bare.replaceAll("-", "+").replaceAll("_", "/")
  return body + "=".repeat((4 - (body.length % 4)) % 4)
}

const image = <B extends Block.Block>(block: B): B =>
  block.type === "image"
    ? { ...block, data: standard(block.data) }
    : block.type === "tool_result"
    ? { ...block, blocks: block.blocks.map(image) }
    : block

/** The conversation with every image's data as decode reads it back. */
export const standardImages = (conversation: Conversation.Conversation): Conversation.Conversation =>
  conversation.map((message) => ({ ...message, blocks: message.blocks.map(image) })) as Conversation.Conversation
