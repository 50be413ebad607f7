import { useState } from 'react'
import { coverAt } from '@/lib/data-saver'
import { useDataSaver } from '@/stores/deferred'
import { coverOrDefault, DEFAULT_IMAGE } from '@/lib/utils'

type Props = Omit<React.ComponentProps<'img'>, 'src' | 'width' | 'height'> & {
  src: string | null | undefined
  /** size is the square's side as shown, in CSS pixels: storage resizes the image to it, and width and height reserve the space. */
  size: number
}

/**
 * SafeImage shows a stored square image (a cover) at the size it is shown,
 * through storage's image transform, and the default image for a missing,
 * placeholder or broken source. It loads lazily unless told otherwise:
 * pass loading="eager" for an image above the fold. With the data saver on
 * it asks for a small rendition.
 */
export function SafeImage({ src, alt, size, loading = 'lazy', ...props }: Props) {
  const [failed, setFailed] = useState<string | null>(null)
  const dataSaver = useDataSaver()
  const wanted = coverOrDefault(coverAt(src, size, dataSaver))
  const shown = failed === wanted ? DEFAULT_IMAGE : wanted
  return <img src={shown} alt={alt} width={size} height={size} loading={loading} decoding="async" onError={() => setFailed(wanted)} {...props} />
}
