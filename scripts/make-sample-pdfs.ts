/**
 * Writes the sample PDFs that samples/manifest.csv references: real one-page contracts made with
 * pdf-lib, with accents and spaces in their names. The output is byte-for-byte reproducible (fixed
 * dates, no random identifiers), so running it again changes nothing in git.
 *
 * Run with `npx tsx scripts/make-sample-pdfs.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from 'pdf-lib';

interface SamplePdf {
  readonly fileName: string;
  readonly title: string;
  readonly lines: readonly string[];
}

const SAMPLES: readonly SamplePdf[] = [
  {
    fileName: 'Contrat de travail - Anne Dupré.pdf',
    title: 'Contrat de travail à durée indéterminée',
    lines: [
      'Entre la société Atelier Lefèvre SAS, représentée par Jürgen Müller, Direction des ressources humaines,',
      'et Madame Anne Dupré, ci-après « la salariée ».',
      '',
      'Article 1 — Engagement : la salariée est engagée en qualité de chargée de clientèle à compter du 1er mars 2026.',
      'Article 2 — Durée du travail : 35 heures par semaine, du lundi au vendredi.',
      'Article 3 — Rémunération : 2 850 € bruts mensuels, versés sur douze mois.',
      'Article 4 — Période d’essai : deux mois, renouvelable une fois.',
      '',
      'Fait à Lyon, en deux exemplaires originaux.',
    ],
  },
  {
    fileName: 'Accord de confidentialité - Bérénice Château.pdf',
    title: 'Accord de confidentialité',
    lines: [
      'Entre Atelier Lefèvre SAS et la société Château & Associés, représentée par Bérénice Château, gérante.',
      '',
      'Article 1 — Objet : les parties échangent des informations sur un projet de partenariat commercial.',
      'Article 2 — Obligations : chaque partie garde confidentielles les informations reçues de l’autre.',
      'Article 3 — Durée : cinq ans à compter de la signature du présent accord.',
      '',
      'Fait à Paris, le jour de la dernière signature électronique.',
    ],
  },
  {
    fileName: 'Avenant au contrat - Jürgen Müller.pdf',
    title: 'Avenant n° 1 au contrat de travail',
    lines: [
      'Entre Atelier Lefèvre SAS, représentée par Hélène Dubois-Marchand, directrice générale,',
      'et Monsieur Jürgen Müller, ci-après « le salarié ».',
      '',
      'Article 1 — Le salarié exerce ses fonctions au bureau de Strasbourg à compter du 1er avril 2026.',
      'Article 2 — Les autres clauses du contrat de travail restent inchangées.',
      '',
      'Fait à Strasbourg, en deux exemplaires originaux.',
    ],
  },
];

/** A fixed date, so that the files do not change each time the script runs. */
const FIXED_DATE = new Date('2026-01-15T09:00:00Z');
const PAGE_SIZE_A4: [number, number] = [595, 842];
const MARGIN = 56;

async function makeSamplePdf(sample: SamplePdf): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const regular = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const page = document.addPage(PAGE_SIZE_A4);
  let y = PAGE_SIZE_A4[1] - MARGIN - 20;
  page.drawText(sample.title, { x: MARGIN, y, size: 16, font: bold });
  y -= 36;
  for (const line of sample.lines) {
    if (line !== '') page.drawText(line, { x: MARGIN, y, size: 9, font: regular });
    y -= 16;
  }
  y -= 40;
  page.drawText('Signatures électroniques :', { x: MARGIN, y, size: 10, font: bold });
  document.setTitle(sample.title);
  document.setAuthor('Atelier Lefèvre SAS');
  document.setCreator('signing batch desk samples');
  document.setProducer('pdf-lib');
  document.setCreationDate(FIXED_DATE);
  document.setModificationDate(FIXED_DATE);
  return document.save();
}

const samplesDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'samples', 'pdfs');
mkdirSync(samplesDir, { recursive: true });
for (const sample of SAMPLES) {
  const path = join(samplesDir, sample.fileName);
  const bytes = await makeSamplePdf(sample);
  writeFileSync(path, bytes);
  console.log(`wrote ${relative(process.cwd(), path)} (${bytes.length} bytes)`);
}
