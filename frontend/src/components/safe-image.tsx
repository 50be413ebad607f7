import { useState } from 'react'
import { coverSrc } from '@/lib/data-saver'
import { useSettingsStore } from '@/stores/settings-store'
import { coverOrDefault, DEFAULT_IMAGE } from '@/lib/utils'

/** SafeImage shows a cover (small with the data saver on), or the default image for a missing, placeholder or broken source. */
export function SafeImage({ src, alt, ...props }: Omit<React.ComponentProps<'img'>, 'src'> & { src: string | null | undefined }) {
  const [failed, setFailed] = useState<string | null>(null)
  // The data saver asks storage for a small rendition.
  const dataSaver = useSettingsStore((s) => s.dataSaver)
  const wanted = coverOrDefault(coverSrc(src, dataSaver))
  const shown = failed === wanted ? DEFAULT_IMAGE : wanted
  return <img src={shown} alt={alt} onError={() => setFailed(wanted)} {...props} />
}
