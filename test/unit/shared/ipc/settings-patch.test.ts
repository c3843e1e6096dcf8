// A settings patch names only what it changes: parsing one adds no field, so a desktop on a
// team hub never sends the team's settings (which only an admin may change) along with its own.
import { describe, expect, it } from 'vitest'
import { SettingsPatch } from '../../../../src/shared/ipc/contract'

describe('SettingsPatch', () => {
  it('adds no field to what it is given', () => {
    expect(SettingsPatch.parse({})).toEqual({})
    expect(SettingsPatch.parse({ theme: 'dark' })).toEqual({ theme: 'dark' })
    expect(SettingsPatch.parse({ inbox: { enabled: true } })).toEqual({ inbox: { enabled: true } })
  })
})
