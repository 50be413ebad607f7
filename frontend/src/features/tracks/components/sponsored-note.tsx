import { Badge } from '@/components/ui/badge'
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip'

/** SponsoredNote tells an artist on their own sponsored track's card why it cannot be pitched. */
export default function SponsoredNote() {
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <Badge variant="secondary" className="self-start">
          Sponsored
        </Badge>
      </TooltipTrigger>
      <TooltipContent>This track is already sponsored and cannot be pitched to other sponsors.</TooltipContent>
    </Tooltip>
  )
}
