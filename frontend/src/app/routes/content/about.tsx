import { Prose } from './prose'

/** AboutPage explains what Backline is. */
export default function AboutPage() {
  return (
    <Prose title="About Backline">
      <p>
        Backline is a music streaming platform built in Nigeria for independent artists, the brands that want to reach their listeners, and the
        fans who keep the culture moving. Our idea is simple: every complete listen of a sponsored track pays the artist, straight into their
        wallet.
      </p>
      <h2>Why we exist</h2>
      <p>
        Streaming royalties rarely reach independent artists in a meaningful way, and brands struggle to measure what they get from music
        sponsorships. Backline connects the two. Sponsors fund a naira wallet and back the artists and tracks they believe in. When a fan listens
        to a sponsored track for at least 30 seconds, ₦50 moves from the sponsor's wallet to the artist's wallet, with a record of every
        transfer.
      </p>
      <h2>How it works</h2>
      <ul>
        <li>Artists upload tracks, accept sponsorship invitations and cash out once their balance reaches ₦1,000.</li>
        <li>Sponsors top up with card or bank transfer, pitch artists, and see exactly which streams they paid for.</li>
        <li>Fans stream for free within a fair daily allowance; only fan listens count as valid streams.</li>
      </ul>
      <h2>Fair by design</h2>
      <p>
        Payments only follow real listening. We check every stream for duplicates, unusual velocity and automated devices before any money
        moves, so sponsors pay for people, not bots, and artists can trust their numbers.
      </p>
      <h2>Where we are</h2>
      <p>Backline is operated from Lagos, Nigeria, and serves listeners across Africa and the diaspora. Payments are settled in Nigerian naira (₦).</p>
    </Prose>
  )
}
