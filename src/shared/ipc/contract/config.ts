// The config namespace: the service's configuration as the renderer needs it, merged from the
// configuration endpoints.
import { z } from 'zod'
import { LimitRead, WithdrawalFeeRead } from './api-shapes'
import { ch, Dec, EpochMs, none } from './primitives'

/** Everything the renderer needs of the configuration, already merged from the config endpoints. */
export const ConfigSnapshot = z.object({
  fetchedAt: EpochMs.nullable(),
  stale: z.boolean(),
  fiats: z.array(z.object({ id: z.number().int(), symbol: z.string() })),
  coins: z.array(
    z.object({
      id: z.number().int(),
      code: z.string(),
      name: z.string(),
      icon: z.string().optional(),
      tradeFloatPlaces: z.number().int(),
      networks: z.array(z.number().int())
    })
  ),
  chains: z.array(
    z.object({
      id: z.number().int(),
      symbol: z.string(),
      name: z.string(),
      detail: z.record(z.string(), z.unknown())
    })
  ),
  /** coinId -> chainId -> fee entry (decimal strings). */
  gasFees: z.record(z.string(), z.record(z.string(), WithdrawalFeeRead)),
  /** onramp/offramp -> fiatId -> {min, max} */
  limits: z.object({
    onramp: z.record(z.string(), LimitRead),
    offramp: z.record(z.string(), LimitRead)
  }),
  minimumBuyAmount: z.record(z.string(), z.record(z.string(), Dec)),
  minimumSellAmount: z.record(z.string(), Dec),
  /**
   * allCoinLimits per fiat type asked (fiatId ->): shape A, that fiat's {min, max}; or
   * shape B, coinId -> chainId -> the fiat amount limit for that coin and chain (read as
   * the minimum onramp amount: the shape of minimumBuyAmount, per fiat).
   */
  coinLimits: z.record(
    z.string(),
    z.discriminatedUnion('shape', [
      z.object({ shape: z.literal('A'), ...LimitRead.shape }),
      z.object({ shape: z.literal('B'), byCoin: z.record(z.string(), z.record(z.string(), Dec)) })
    ])
  ),
  gatewayFee: z.record(z.string(), z.record(z.string(), Dec))
})
export type ConfigSnapshot = z.infer<typeof ConfigSnapshot>

export const configChannels = {
  'config:get': ch(none, ConfigSnapshot, 'The cached configuration (stale-while-revalidate)'),
  'config:refresh': ch(none, ConfigSnapshot, 'Refetch the configuration now')
} as const
