import { Prose } from './prose'

const faqs: [string, string][] = [
  ['Is Backline free for fans?', 'Yes. Fans can sign up and stream for free. Each fan has a daily stream allowance to keep streams fair for artists and sponsors.'],
  ['Why can I only hear 10 seconds?', 'Visitors without an account hear a 10-second preview of every track. Create a free fan account to listen to full songs.'],
  ['When does a stream count?', 'A stream counts when a signed-in fan listens to a track for at least 30 seconds. Artists listening to their own tracks, and other account types, do not generate valid streams.'],
  ['How do artists get paid?', 'When a fan completes a valid stream of a sponsored track, ₦50 is transferred from the sponsor’s wallet to the artist’s wallet. Artists can request a cash-out to their Nigerian bank account once their balance reaches ₦1,000.'],
  ['How do sponsors pay?', 'Sponsors top up their wallet by card or bank transfer through our payment partners. Card checkouts add VAT of 7.5% and a ₦1,000 processing fee. Sponsored streams are deducted from the wallet as they happen.'],
  ['What is verification?', 'Artists and sponsors can buy a verified badge for ₦60,000 (plus VAT and fees). It lasts one year and shows listeners and partners that the account is authentic.'],
  ['What stops fake streams?', 'Every stream passes duplicate checks (at most 3 per track from one location per 24 hours), velocity limits (25 per hour, 200 per day), device checks and fraud scoring before any payment is made.'],
  ['Can I use Backline offline?', 'You can install Backline to your home screen. The app shell and recently played covers and audio are cached, but streams are only counted online.'],
  ['How do I delete my account?', 'Contact support from the email address on your account. We will close it and delete your personal data, keeping only the financial records the law requires.'],
]

/** FaqPage answers common questions. */
export default function FaqPage() {
  return (
    <Prose title="Frequently Asked Questions">
      {faqs.map(([q, a]) => (
        <section key={q}>
          <h2>{q}</h2>
          <p>{a}</p>
        </section>
      ))}
    </Prose>
  )
}
