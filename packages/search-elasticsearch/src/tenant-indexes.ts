import type { Client } from '@elastic/elasticsearch';

/** Deletes the concrete indexes of the tenant alias `alias` that `which` selects (all by default). */
export async function deleteTenantIndexes(
  client: Client,
  alias: string,
  which: (name: string) => boolean = () => true,
): Promise<void> {
  const found = await client.indices.get({ index: `${alias}-*`, allow_no_indices: true });
  const names = Object.keys(found).filter(which);
  if (names.length > 0) await client.indices.delete({ index: names }, { ignore: [404] });
}
