export * from "./bundle";
export * from "./notes";
export * from "./profiles";
export { piiKindsIn, PII_KINDS, type PiiKind } from "./pii";
export { signerFromPem, newPrivateKeyPem } from "./signer";
export { ArchiveError, ArchiveTooLarge, DEFAULT_MAX_TAR_BYTES, repack, unpackTarGz, type Member } from "./archive";
export * from "./opened";
