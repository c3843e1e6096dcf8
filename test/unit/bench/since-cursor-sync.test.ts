// The since-cursor baseline's paging rule: keyset by the last updatedAt of a full page,
// offset only inside a run of equal updatedAt that fills a whole page.
import { describe, expect, it } from 'vitest'
import { nextListing } from '../../../bench/lib/since-cursor-sync'

const T1 = '2024-01-01T00:00:01.000Z'
const T2 = '2024-01-01T00:00:02.000Z'

describe('nextListing', () => {
  it('stops after a short page', () => {
    expect(nextListing({ since: undefined, page: 1 }, 499, T1, 500)).toBeNull()
    expect(nextListing({ since: T1, page: 3 }, 0, undefined, 500)).toBeNull()
  })

  it('moves the since to the last updatedAt of a full page, back to page 1', () => {
    expect(nextListing({ since: undefined, page: 1 }, 500, T1, 500)).toEqual({ since: T1, page: 1 })
    expect(nextListing({ since: T1, page: 2 }, 500, T2, 500)).toEqual({ since: T2, page: 1 })
  })

  it('pages by offset while a whole page sits at the instant it asked from', () => {
    expect(nextListing({ since: T1, page: 1 }, 500, T1, 500)).toEqual({ since: T1, page: 2 })
    expect(nextListing({ since: T1, page: 2 }, 500, T1, 500)).toEqual({ since: T1, page: 3 })
  })
})
