// The contract's copies of shapes the merchant API's schemas define: the same fields, taken
// as main sends them on (decimal strings, integers), not as the service may write them.
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { LimitEntry, OfframpQuoteFields, OnrampQuoteFields, WithdrawalFeeEntry } from '../../../../src/shared/api/schemas'
import { LimitRead, OfframpQuoteRead, OnrampQuoteRead, WithdrawalFeeRead } from '../../../../src/shared/ipc/contract/api-shapes'

describe('contract: shapes read from the API schemas', () => {
  it('has every field of the API shape, optional where the API shape has it optional', () => {
    const pairs: Array<[z.ZodObject, z.ZodObject]> = [
      [WithdrawalFeeEntry, WithdrawalFeeRead],
      [LimitEntry, LimitRead],
      [OnrampQuoteFields, OnrampQuoteRead],
      [OfframpQuoteFields, OfframpQuoteRead]
    ]
    for (const [api, read] of pairs) {
      expect(Object.keys(read.shape)).toEqual(Object.keys(api.shape))
      for (const [k, f] of Object.entries(api.shape))
        expect(read.shape[k]!.safeParse(undefined).success, k).toBe(f.safeParse(undefined).success)
    }
  })

  it('takes money as a decimal string and integers as numbers, as main sends them', () => {
    const fee = { withdrawalFee: '0.0005', minimumWithdrawal: '0.001', nodeInSync: 1 }
    expect(WithdrawalFeeRead.parse({ ...fee, depositEnable: 0, extra: 'x' })).toEqual({ ...fee, depositEnable: 0 })
    // What the API schema tolerates from the service, main never sends on.
    expect(WithdrawalFeeEntry.safeParse({ ...fee, withdrawalFee: 0.0005 }).success).toBe(true)
    expect(WithdrawalFeeRead.safeParse({ ...fee, withdrawalFee: 0.0005 }).success).toBe(false)
    expect(WithdrawalFeeRead.safeParse({ ...fee, withdrawalFee: '5e-4' }).success).toBe(false)
    expect(WithdrawalFeeRead.safeParse({ ...fee, nodeInSync: '1' }).success).toBe(false)
    expect(WithdrawalFeeRead.safeParse({ ...fee, nodeInSync: 1.5 }).success).toBe(false)
    expect(LimitRead.safeParse({ min: '10', max: '5000.5' }).success).toBe(true)
    expect(LimitRead.safeParse({ min: '10' }).success).toBe(false)
  })
})
