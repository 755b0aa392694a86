/**
 * The TenantStore contract, backend-neutral: every adapter runs it unchanged from its own test file
 * (`describeTenantStoreContract('sqlite', open)`). `open` returns a fresh, empty store per test.
 * Each concern is a suite of its own in `tenant-store/`; this entry runs them all on one store per case.
 *
 * Orders the contract fixes: lists default to creation order; a sort puts objects without a value
 * first ascending (last descending); ties break by creation order in the sort's direction.
 */
import type { TenantStore } from '@odp/core';
import { describeAccessFilterContract, describeDerivedAccessContract } from './tenant-store/access-filter.js';
import { describeAccessRowsContract } from './tenant-store/access-rows.js';
import { describeValuesAndAggregateContract } from './tenant-store/aggregate.js';
import { tenantStorePerCase } from './tenant-store/case.js';
import {
  describeDistinctNarrowedContract,
  describeDistinctOrderContract,
  describeDistinctReadersContract,
} from './tenant-store/distinct.js';
import { describeExpectationsContract } from './tenant-store/expectations.js';
import { describeFiltersContract, describeRelatedSelectionsContract } from './tenant-store/filters.js';
import { describeIdempotencyContract } from './tenant-store/idempotency.js';
import { describeObjectLinksContract } from './tenant-store/links.js';
import { describeOutboxContract } from './tenant-store/outbox.js';
import {
  describeKeysetAcrossWritesContract,
  describeKeysetWalkContract,
  describePageNumberPagingContract,
} from './tenant-store/paging.js';
import { describeObjectReadsContract } from './tenant-store/reads.js';
import { describeSortContract } from './tenant-store/sort.js';
import { describeUnicodeFoldingContract } from './tenant-store/unicode.js';
import { describeWritesContract } from './tenant-store/writes.js';

export function describeTenantStoreContract(name: string, open: () => Promise<TenantStore>): void {
  describe(`TenantStore contract: ${name}`, () => {
    const tenant = tenantStorePerCase(open);
    describeObjectReadsContract(tenant);
    describeObjectLinksContract(tenant);
    describeUnicodeFoldingContract(tenant);
    describeFiltersContract(tenant);
    describeSortContract(tenant);
    describePageNumberPagingContract(tenant);
    describeKeysetWalkContract(tenant);
    describeKeysetAcrossWritesContract(tenant);
    describeRelatedSelectionsContract(tenant);
    describeDistinctOrderContract(tenant);
    describeDistinctReadersContract(tenant);
    describeDistinctNarrowedContract(tenant);
    describeValuesAndAggregateContract(tenant);
    describeAccessFilterContract(tenant);
    describeDerivedAccessContract(tenant);
    describeAccessRowsContract(tenant);
    describeWritesContract(tenant);
    describeExpectationsContract(tenant);
    describeOutboxContract(tenant);
    describeIdempotencyContract(tenant);
  });
}
