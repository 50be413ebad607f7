import { useSeen } from '@/hooks/use-seen'

/** WHEN_SEEN_AHEAD is how far below the screen a section is drawn: it is on the page before it scrolls in. */
export const WHEN_SEEN_AHEAD = '0px 0px 200px 0px'

/**
 * WhenSeen draws its children once their place comes near the screen, and
 * the placeholder until then: a section below a page's first screen is not
 * rendered during the page's load, when the main thread is busiest. Once
 * drawn it stays. The placeholder should be about the section's height, so
 * nothing below moves much when it is drawn.
 */
export function WhenSeen({ placeholder, className, children }: { placeholder: React.ReactNode; className?: string; children: React.ReactNode }) {
  const [ref, seen] = useSeen<HTMLDivElement>(WHEN_SEEN_AHEAD)
  return (
    <div ref={ref} className={className} data-seen={seen}>
      {seen ? children : placeholder}
    </div>
  )
}
