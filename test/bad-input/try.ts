import { CASES } from './cases';
import { runBadInputTable, figuresTable, summaryLines } from './case-runner';
const only = process.argv.slice(2);
const table = await runBadInputTable(only.length ? CASES.filter((c) => only.includes(c.id)) : CASES);
console.log(figuresTable(table.results).join('\n'));
console.log(summaryLines(table).join('\n'));
for (const r of table.results)
  if (!r.answersAsExpected)
    console.log(
      r.caseId,
      r.entry,
      r.failure ?? '',
      '\nEXPECTED',
      JSON.stringify(r.expected),
      '\nOBSERVED',
      JSON.stringify(r.observed),
    );
