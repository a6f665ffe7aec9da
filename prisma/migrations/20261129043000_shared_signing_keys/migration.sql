-- Certificate signing keys and generated secrets move from each instance's data directory into the
-- database, so instances sharing a database sign and verify with the same keys. Start-up fills them
-- (src/certificates/keys.ts, src/secrets/secret-box.ts), taking over a data directory's existing key files.

-- CreateTable
CREATE TABLE "certificate_signing_keys" (
    "kid" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "private_key_sealed" TEXT,
    "signs" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "certificate_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateTable
CREATE TABLE "service_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "certificate_signing_keys_one_signing_key" ON "certificate_signing_keys"("signs") WHERE signs;
