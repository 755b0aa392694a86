import { describeBlobStoreContract, describeWithEngine } from '@odp/testkit';
import { openS3BlobStore } from './s3-blob-store.js';

describeWithEngine('S3 blob store on MinIO', 'ODP_TEST_S3_ENDPOINT', (endpoint) => {
  describeBlobStoreContract('s3 (MinIO)', () =>
    openS3BlobStore({
      endpoint,
      bucket: 'odp-contract',
      accessKey: process.env['ODP_TEST_S3_ACCESS_KEY'] ?? null,
      secretKey: process.env['ODP_TEST_S3_SECRET_KEY'] ?? null,
      region: 'us-east-1',
    }),
  );
});
