import { describe, expect, it } from 'vitest'
import { kycObjectName, kycStatus, validateKyc, type KycSubmission } from './kyc'

const ok = { fullName: 'Ada Obi', documentType: 'passport', documentNumber: 'A12345678', file: null }

describe('validateKyc', () => {
  it('accepts a complete form, with or without a scan', () => {
    expect(validateKyc(ok)).toEqual({})
    expect(validateKyc({ ...ok, file: { size: 200_000, type: 'application/pdf' } })).toEqual({})
    expect(validateKyc({ ...ok, documentType: 'nin', documentNumber: ' 12345678901 ' })).toEqual({})
  })
  it('needs a name, a known document and its number', () => {
    expect(validateKyc({ fullName: '  ', documentType: 'library_card', documentNumber: '', file: null })).toEqual({
      fullName: 'Enter your full name',
      documentType: 'Choose a document type',
      documentNumber: 'Enter the document number',
    })
    expect(validateKyc({ ...ok, fullName: ' A ' }).fullName).toBe('Enter your full name as it appears on the document')
    expect(validateKyc({ ...ok, fullName: 'x'.repeat(201) }).fullName).toBe('Enter your full name as it appears on the document')
    expect(validateKyc({ ...ok, documentType: 'toString' }).documentType).toBe('Choose a document type')
  })
  it.each([
    ['nin', '1234567890', 'A NIN is 11 digits'],
    ['nin', '1234567890a', 'A NIN is 11 digits'],
    ['passport', 'A1', 'Enter the document number as it is printed'],
    ['passport', 'A12<b>345', 'Enter the document number as it is printed'],
    ['voters_card', '-90F5B1234', 'Enter the document number as it is printed'],
    ['drivers_license', 'x'.repeat(51), 'Enter the document number as it is printed'],
  ])('%s %j: %s', (documentType, documentNumber, msg) => {
    expect(validateKyc({ ...ok, documentType, documentNumber }).documentNumber).toBe(msg)
  })
  it.each([
    ['90F5 B123 4567 8901 234', 'voters_card'],
    ['ABC12345AA12', 'drivers_license'],
    ['NG/123-45', 'national_id'],
  ])('takes %j as a %s number', (documentNumber, documentType) => {
    expect(validateKyc({ ...ok, documentType, documentNumber })).toEqual({})
  })
  it("refuses a scan the bucket would refuse", () => {
    expect(validateKyc({ ...ok, file: { size: 1000, type: 'image/gif' } }).file).toBe('This document type is not supported')
    expect(validateKyc({ ...ok, file: { size: 10 * 1024 * 1024 + 1, type: 'image/png' } }).file).toBe('The document is larger than 10 MB')
  })
})

describe('kycObjectName', () => {
  it("puts the scan in the artist's own folder under a new name", () => {
    expect(kycObjectName('u1', { name: 'My ID.JPG', type: 'image/jpeg' }, 42)).toBe('u1/kyc-42.jpg')
    expect(kycObjectName('u1', { name: 'scan', type: 'application/pdf' }, 43)).toBe('u1/kyc-43.pdf')
  })
})

describe('kycStatus', () => {
  const now = new Date('2026-06-01T12:00:00Z')
  const sub = (status: KycSubmission['status'], reason: string | null = null): KycSubmission => ({
    id: 's',
    status,
    reason,
    expires_at: null,
    created_at: '2026-05-30T10:00:00Z',
    document_type: 'passport',
  })
  const days = (n: number) => new Date(now.getTime() + n * 86_400_000).toISOString()

  it('offers a first submission', () => {
    expect(kycStatus({ kyc_status: 'none', kyc_expiry_date: null }, null, now)).toMatchObject({ state: 'none', canSubmit: true })
  })
  it('waits while a submission is pending, also as a renewal', () => {
    expect(kycStatus({ kyc_status: 'pending', kyc_expiry_date: null }, sub('pending'), now)).toMatchObject({ state: 'pending', canSubmit: false, submittedAt: '2026-05-30T10:00:00Z' })
    expect(kycStatus({ kyc_status: 'approved', kyc_expiry_date: days(10) }, sub('pending'), now)).toMatchObject({ state: 'pending', canSubmit: false, expiresAt: days(10) })
  })
  it('shows a rejection with its reason and takes a resubmission', () => {
    expect(kycStatus({ kyc_status: 'rejected', kyc_expiry_date: null }, sub('rejected', 'Photo is blurred'), now)).toMatchObject({ state: 'rejected', canSubmit: true, reason: 'Photo is blurred' })
  })
  it('blocks a new submission while an approval runs, until its last 30 days', () => {
    expect(kycStatus({ kyc_status: 'approved', kyc_expiry_date: days(31) }, sub('approved'), now)).toMatchObject({ state: 'approved', canSubmit: false, expiresAt: days(31) })
    expect(kycStatus({ kyc_status: 'approved', kyc_expiry_date: days(30) }, sub('approved'), now)).toMatchObject({ state: 'expiring', canSubmit: true })
    expect(kycStatus({ kyc_status: 'approved', kyc_expiry_date: null }, sub('approved'), now)).toMatchObject({ state: 'approved', canSubmit: false })
  })
  it('takes a new submission once an approval expired, whatever the last review said', () => {
    expect(kycStatus({ kyc_status: 'approved', kyc_expiry_date: days(-1) }, sub('approved'), now)).toMatchObject({ state: 'expired', canSubmit: true, expiresAt: days(-1) })
    // A rejected renewal leaves the running approval in place; its reason shows.
    expect(kycStatus({ kyc_status: 'approved', kyc_expiry_date: days(5) }, sub('rejected', 'Old photo'), now)).toMatchObject({ state: 'expiring', canSubmit: true, reason: 'Old photo' })
  })
})
