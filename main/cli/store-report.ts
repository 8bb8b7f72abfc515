import type { StoreLoadReport } from '../store/batch-store';
import type { CliOutput } from './cli-output';

/** Prints what loading the store found: damaged batches (left untouched) and recovered torn writes. */
export function reportStoreDamage(store: { readonly loadReport: StoreLoadReport }, out: CliOutput): void {
  for (const damaged of store.loadReport.damaged) {
    out.error(
      `Batch ${damaged.batchId} cannot be read (${damaged.damage.problem}, ${damaged.damage.file}${damaged.damage.line ? ` line ${damaged.damage.line}` : ''}). It is left untouched; report this to support.`,
    );
  }
  for (const recovered of store.loadReport.recovered) {
    out.say(
      `Note: batch ${recovered.batchId} had ${recovered.problem}; it was set aside. Nothing acknowledged was lost.`,
    );
  }
}
