/**
 * The progress line of `Episode.runMany`: one line on stderr, rewritten in place, with the counts
 * and the mean reward so far. Does nothing when not shown.
 */
import type * as Episode from "../../Episode.js"

export interface Meter {
  readonly started: () => void
  readonly ended: (episode: Episode.Episode<any>) => void
  readonly close: () => void
}

const silent: Meter = { started: () => {}, ended: () => {}, close: () => {} }

export const make = (total: number, show: boolean): Meter => {
  if (!show) return silent
  let running = 0
  let done = 0
  let failed = 0
  let rewarded = 0
  let rewardSum = 0
  let last = 0
  const render = (force: boolean) => {
    const now = Date.now()
    if (!force && now - last < 100) return
    last = now
    const mean = rewarded === 0 ? "-" : (rewardSum / rewarded).toFixed(3)
    process.stderr.write(
      `\r\x1b[Kepisodes ${done}/${total} · running ${running} · failed ${failed} · mean reward ${mean}`
    )
  }
  return {
    started: () => {
      running += 1
      render(false)
    },
    ended: (episode) => {
      running -= 1
      done += 1
      if (episode.stop._tag === "Failed") failed += 1
      if (episode.totalReward !== null) {
        rewarded += 1
        rewardSum += episode.totalReward
      }
      render(done === total)
    },
    close: () => {
      render(true)
      process.stderr.write("\n")
    }
  }
}
