import { useState } from 'react'
import { coverOrDefault, DEFAULT_IMAGE } from '@/lib/utils'

/** SafeImage shows the default image for a missing, placeholder or broken source. */
export function SafeImage({ src, alt, ...props }: Omit<React.ComponentProps<'img'>, 'src'> & { src: string | null | undefined }) {
  const [failed, setFailed] = useState<string | null>(null)
  const wanted = coverOrDefault(src)
  const shown = failed === wanted ? DEFAULT_IMAGE : wanted
  return <img src={shown} alt={alt} onError={() => setFailed(wanted)} {...props} />
}
