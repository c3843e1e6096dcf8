// Order records for store tests, built through the real tolerant schemas so they have
// exactly the normalised shape the API client hands to the store.
import { OfframpOrder, OnrampOrder } from '../../../../src/shared/api/schemas'

export function onramp(over: Record<string, unknown> = {}): OnrampOrder {
  return OnrampOrder.parse({
    orderId: 1001,
    walletAddress: '0xAbC0000000000000000000000000000000000001',
    coinId: 54,
    chainId: 1,
    fiatType: 1,
    paymentType: 1,
    fiatAmount: 1000,
    expectedCryptoAmount: 11.99,
    expectedPrice: 83.4,
    actualCryptoAmount: null,
    actualPrice: null,
    kycNeeded: 0,
    createdAt: '2024-03-01T10:00:00.000Z',
    updatedAt: '2024-03-01T10:00:00.000Z',
    status: 0,
    referenceId: 'UPI-REF-1',
    transactionHash: '0xdeadbeef01',
    onRampFee: 0.008157600000000001,
    gasFee: 0.5,
    clientFee: 0,
    gatewayFee: 1.18,
    merchantRecognitionId: 'MR-1001',
    ...over
  })
}

export function offramp(over: Record<string, unknown> = {}): OfframpOrder {
  return OfframpOrder.parse({
    orderId: 2001,
    coinId: 54,
    chainId: 2,
    walletAddress: 'TXYZ00000000000000000000000000001',
    expectedPrice: 82.1,
    expectedQuantity: '25.5',
    actualPrice: 82.0,
    actualQuantity: 25.5,
    actualFiatAmount: 2091,
    onrampFee: 2.1,
    clientFee: 0,
    gatewayFee: 3.5,
    tdsFee: 20.91,
    merchantRecognitionId: 'SELL-2001',
    paymentType: 2,
    createdAt: '2024-03-02T10:00:00.000Z',
    updatedAt: '2024-03-02T10:05:00.000Z',
    status: 0,
    transactionHash: 'abc123',
    ...over
  })
}
