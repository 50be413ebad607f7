import { useState } from 'react'
import { mediaUrl } from '@/lib/media'
import { coverOrDefault, DEFAULT_IMAGE } from '@/lib/utils'

/** SafeImage shows the default image for a missing, placeholder or broken source. */
export function SafeImage({ src, alt, ...props }: Omit<React.ComponentProps<'img'>, 'src'> & { src: string | null | undefined }) {
  const [failed, setFailed] = useState<string | null>(null)
  const wanted = coverOrDefault(mediaUrl(src))
  const shown = failed === wanted ? DEFAULT_IMAGE : wanted
  return <img src={shown} alt={alt} onError={() => setFailed(wanted)} {...props} />
}
