/**
 * Main speaks the person's language in what it builds for the page: a document's problems, a
 * failure of the error catalog, worded when the view is built, so a change of language rewords what
 * was stored in another one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { documentViewOf } from '../../../main/app/batch-views';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { olderBatchReason } from '../../../main/engine/older-batch';
import { checkManifest, formatIssue } from '../../../main/manifest/manifest';
import { failureMessage, repeatedUploadRefusalMessage } from '../../../main/domain/send-messages';
import { batchReportCsv } from '../../../main/report/report-csv';
import type { ItemError } from '../../../shared/domain/batch';
import { withDialogAnswer } from '../../../main/browser-host/host-dialogs';
import { currentWidgetUrl } from '../../../main/browser-host/chromium-ceremony-opener';
import { Secret } from '../../../main/base/secret';
import { speaking } from '../../../main/base/words';
import { launchBrowserHost, profileRegistry } from '../../../main/browser-host/launch';
import { writeRendererFixture } from '../browser-host/host-fixtures';
import {
  createMemoryCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import type { CeremonyRequest } from '../../../main/app/ports';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import { LANGUAGES } from '../../../shared/i18n/languages';
import { createTranslator } from '../../../shared/i18n/translator';
import { ERROR_CATALOG, userMessage } from '../../../shared/service/error-catalog';
import {
  DEMO_CLIENT,
  startSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../../simulator/simulator';
import {
  createTestDeskService,
  deleteConnectionAnyway,
  sendOneDocumentBatch,
} from '../../support/desk-service-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { savedSecretAccount } from '../../support/keychain-accounts';
import { serviceErrorCode } from '../../../shared/service/error-codes';

let files: TempFolder | undefined;
let opened: { dataDir: DataDir; service: DeskService } | undefined;

/** Closes the desk the test opened, if it is open. */
async function closeApp(): Promise<void> {
  await opened?.service.close();
  await opened?.dataDir.close();
  opened = undefined;
}

afterEach(async () => {
  await closeApp();
  files?.remove();
});

async function openApp(
  path: string,
  systemLocales: readonly string[],
  options: { credentials?: CredentialStore; ceremonies?: CeremonyRequest[] } = {},
): Promise<DeskService> {
  const result = await openDataDir(path);
  if (!result.ok) throw new Error(result.error);
  const service = createTestDeskService(result.value, options.credentials ?? createMemoryCredentialStore(), {
    systemLocales,
    ...(options.ceremonies
      ? { ceremony: { open: async (request) => void options.ceremonies?.push(request) } }
      : {}),
  });
  opened = { dataDir: result.value, service };
  await service.start();
  return service;
}

/** A simulator for this test alone, closed once it is over (after afterEach has closed the desk using it). */
async function simulatorForTest(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator(options);
  onTestFinished(() => sim.close());
  return sim;
}

/** A desk in a new folder with one connection, Büro, to a simulator for this test alone. */
async function openConnectedApp(
  systemLocales: readonly string[],
  options: Parameters<typeof openApp>[2] = {},
): Promise<{ service: DeskService; sim: Simulator; folder: TempFolder }> {
  const folder = makeTempFolder('desk-messages-');
  files = folder;
  const sim = await simulatorForTest({ seed: 7 });
  const service = await openApp(folder.file('data'), systemLocales, options);
  await service.handlers['profiles.save']({
    name: 'Büro',
    baseUrl: sim.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  return { service, sim, folder };
}

describe('main’s messages in the person’s language', () => {
  it('a document’s problems follow the language, and change with it', async () => {
    files = makeTempFolder('desk-messages-');
    const service = await openApp(files.file('data'), ['fr-FR']);
    const batch = await service.handlers['batches.create']('Contrats');
    const pdf = await writePdf(files, 'contrat.pdf');
    await service.handlers['documents.addPaths'](batch.id, [pdf]);

    const problems = async () => (await service.handlers['batches.get'](batch.id)).documents[0]?.problems;
    expect(await problems()).toEqual([
      'Ajoutez au moins un destinataire.',
      'Ajoutez au moins un signataire\u00a0: une demande avec seulement des observateurs ne peut pas être signée.',
    ]);
    await service.handlers['app.setLanguage']('de');
    expect(await problems()).toEqual([
      'Fügen Sie mindestens einen Empfänger hinzu.',
      'Fügen Sie mindestens eine unterzeichnende Person hinzu: Eine Anfrage nur mit Beobachtenden kann nicht unterschrieben werden.',
    ]);
    await service.handlers['app.setLanguage']('en');
    expect(await problems()).toEqual([
      'Add at least one recipient.',
      'Add at least one signer: a request with observers only cannot be signed.',
    ]);
  });

  it('the error catalog has every code’s words in every language, and an unknown code keeps the service’s own', () => {
    for (const language of LANGUAGES) {
      const { t } = createTranslator(language);
      for (const code of Object.keys(ERROR_CATALOG)) {
        const words = userMessage(code, undefined, t);
        expect(words, `${language} ${code}`).not.toContain('errors.');
        if (language !== 'en')
          expect(words, `${language} ${code} is not English`).not.toBe(userMessage(code));
      }
      const unknown = userMessage('quota_exceeded', 'Monthly quota reached', t);
      expect(unknown).toContain('quota_exceeded');
      expect(unknown).toContain('Monthly quota reached');
    }
    expect(userMessage('pdf_too_large', undefined, createTranslator('fr').t)).toBe(
      'Le PDF dépasse 50 Mio. Réduisez le fichier (par exemple en compressant les images ou en scindant le document) et ajoutez-le de nouveau.',
    );
  });
});

/** A batch of one document that failed with `error`, as stored in its journal. */
function failedBatch(error: ItemError) {
  const events: BatchEvent[] = [
    { type: 'batch_created', batchId: 'b', name: 'B', defaults: { defaultRecipients: [] } },
    {
      type: 'document_added',
      document: {
        id: 'd',
        externalReference: 'R-1',
        pdf: { originalName: 'd.pdf', storedFilename: 'd.pdf', sizeBytes: 10, sha256: 'a'.repeat(64) },
        recipients: [{ participant_type: 'signer', role: 'R', name: 'Ann', email: 'a@example.com' }],
        extraParticipants: [],
        options: {},
      },
    },
    { type: 'send_requested', documentIds: ['d'] },
    { type: 'item_failed', documentId: 'd', error },
  ];
  return events.reduce(
    (state, event, index) =>
      applyBatchEvent(state, { seq: index + 1, at: '2026-11-23T10:00:00.000Z', event }),
    emptyBatch('b'),
  );
}

describe('a failure the service words itself, in the person’s language', () => {
  const at = '2026-11-23T10:00:00.000Z';
  const french = createTranslator('fr', 'fr-FR');
  const messageIn = (error: ItemError, t = french.t) => {
    const batch = failedBatch(error);
    return documentViewOf(batch, batch.documents[0]!, t).error!.message;
  };

  it('an unknown code: the wrapper in French, the code and the service’s words verbatim, in the view and the report', () => {
    const error = {
      ...failureMessage({
        code: serviceErrorCode('tenant_suspended'),
        serviceMessage: 'Tenant suspended {x}',
        retryable: false,
      }),
      at,
    };
    expect(error.message).toMatch(/^The signing service answered/); // stored in English
    expect(messageIn(error)).toBe(
      'Le service de signature a répondu avec l’erreur « tenant_suspended »\u00a0: Tenant suspended {x}',
    );
    expect(messageIn(error, createTranslator('de').t)).toBe(
      'Der Signaturdienst antwortete mit dem Fehler „tenant_suspended“: Tenant suspended {x}',
    );
    expect(messageIn(error, createTranslator('en').t)).toBe(error.message);
    expect(batchReportCsv(failedBatch(error), french)).toContain(
      '"Le service de signature a répondu avec l’erreur « tenant_suspended »\u00a0: Tenant suspended {x}"',
    );
  });

  it('a refused creation and a refused upload: the step’s own words in German, the service’s kept', () => {
    const { t } = createTranslator('de');
    const created = {
      ...failureMessage({
        code: serviceErrorCode('recipient_blocked'),
        serviceMessage: 'Blocked: x@y',
        retryable: false,
        operation: 'createSigningRequest',
      }),
      at,
    };
    expect(messageIn(created, t)).toBe(
      'Der Dienst hat das Erstellen der Signaturanfrage abgelehnt (Fehler „recipient_blocked“: Blocked: x@y). Prüfen Sie die Empfänger und Optionen dieses Dokuments, korrigieren Sie sie und versuchen Sie es dann erneut.',
    );
    const upload = {
      ...repeatedUploadRefusalMessage({ code: 'upload_expired', serviceMessage: 'gone' }),
      at,
    };
    expect(messageIn(upload, t)).toMatch(
      /^Der Dienst hat das Hochladen dieses Dokuments erneut abgelehnt.*„upload_expired“: gone/,
    );
  });

  it('a failure stored before the service’s words were kept still loads, and is reworded, the service’s words found in it', () => {
    const bare = {
      code: serviceErrorCode('tenant_suspended'),
      message: 'The signing service answered with error "tenant_suspended"',
      retryable: false,
      at,
    };
    expect(messageIn(bare)).toBe('Le service de signature a répondu avec l’erreur « tenant_suspended »');
    const older = { ...bare, message: userMessage('tenant_suspended', 'Tenant: suspended "x"') };
    expect(messageIn(older)).toBe(
      'Le service de signature a répondu avec l’erreur « tenant_suspended »\u00a0: Tenant: suspended "x"',
    );
    const refused = {
      ...failureMessage({
        code: serviceErrorCode('recipient_blocked'),
        serviceMessage: 'Blocked',
        retryable: false,
        operation: 'createSigningRequest',
      }),
      at,
    };
    const { serviceMessage: _kept, ...olderRefused } = refused;
    expect(messageIn(olderRefused)).toMatch(
      /^Le service a refusé de créer la demande de signature \(erreur «\u00a0recipient_blocked\u00a0»\u00a0: Blocked\)/,
    );
    // Words no wording of this app makes stay as they were stored.
    const foreign = { ...bare, message: 'Something an older app said' };
    expect(messageIn(foreign)).toBe(foreign.message);
  });
});

describe('a manifest’s problems in the person’s language', () => {
  it('the preview names every problem in French, by the row and column Excel shows, and the command line’s English is unchanged', async () => {
    files = makeTempFolder('desk-messages-');
    const service = await openApp(files.file('data'), ['fr-CH']);
    const manifest = join(import.meta.dirname, '..', '..', '..', 'samples', 'manifest-with-errors.csv');
    const preview = await service.handlers['manifest.preview'](manifest);
    const texts = preview.issues.map((issue) => issue.text);
    expect(texts.length).toBeGreaterThan(3);
    for (const text of texts) expect(text).toMatch(/^(ligne \d+|le manifeste|le fichier)/);
    expect(texts.join('\n')).not.toMatch(/\b(line|row|must|column)\b/);
    expect(texts[0]).toMatch(/^ligne 3, colonne G \(email\) : /);
    expect(preview.issues[0]).toMatchObject({ row: 3, column: 'email', columnLetter: 'G' });

    const english = await checkManifest(manifest);
    expect(english.issues.map((issue) => formatIssue(issue))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^row \d+, column [A-Z]+ \(\w+\): /)]),
    );
    await service.handlers['app.setLanguage']('de');
    const german = await service.handlers['manifest.preview'](manifest);
    for (const issue of german.issues) expect(issue.text).toMatch(/^Zeile \d+, Spalte [A-Z]+ \(\w+\): /);
  });
});

describe('the app’s own refusals in the person’s language', () => {
  it('a document already sent, a batch that is gone, a connection that does not exist', async () => {
    files = makeTempFolder('desk-messages-');
    const service = await openApp(files.file('data'), ['de-AT']);
    const refusal = async (call: () => Promise<unknown>) => {
      try {
        await call();
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      return undefined;
    };
    expect(await refusal(() => service.handlers['batches.get']('missing'))).toBe(
      'Dieser Stapel existiert nicht mehr.',
    );
    expect(await refusal(() => service.handlers['profiles.test']('Büro'))).toBe(
      'Es gibt keine Verbindung namens „Büro“.',
    );
    await service.handlers['app.setLanguage']('fr');
    expect(await refusal(() => service.handlers['batches.get']('missing'))).toBe('Ce lot n’existe plus.');
  });
});

describe('a file that cannot be added, in the person’s language', () => {
  it('names why each file was left out in French, and in English the words it always had', async () => {
    files = makeTempFolder('desk-messages-');
    const service = await openApp(files.file('data'), ['fr-BE']);
    const batch = await service.handlers['batches.create']('Contrats');
    const notPdf = files.file('note.pdf');
    writeFileSync(notPdf, 'not a PDF at all');
    const missing = files.file('absent.pdf');
    const french = await service.handlers['documents.addPaths'](batch.id, [notPdf, missing]);
    expect(french.rejected.map((file) => file.message)).toEqual([
      'Le fichier n’est pas un PDF\u00a0: il ne commence pas par l’en-tête d’une version de PDF qui existe (%PDF-1.0 à %PDF-1.7, ou %PDF-2.0).',
      'Impossible de lire le fichier\u00a0: le fichier n’existe pas.',
    ]);
    await service.handlers['app.setLanguage']('en');
    const english = await service.handlers['documents.addPaths'](batch.id, [notPdf, missing]);
    expect(english.rejected.map((file) => file.message)).toEqual([
      'The file is not a PDF: it does not start with the header of a PDF version that exists (%PDF-1.0 to %PDF-1.7, or %PDF-2.0).',
      'Cannot read the file: the file does not exist.',
    ]);
  });
});

describe('a refused answer to a check, in the person’s language', () => {
  it('linking a document that needs no check is refused in German, with the words made inside the engine', async () => {
    const { service, folder } = await openConnectedApp(['de-DE']);
    const batchId = await sendOneDocumentBatch(service.handlers, folder, 'RH-1');
    const [document] = (await service.handlers['batches.get'](batchId)).documents;
    const refusal = await service.handlers['sending.linkRequest'](batchId, document!.id, 'sr_x').then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(refusal).toMatch(/^RH-1 braucht keine Prüfung: Es ist bereits vorbereitet \(Anfrage \S+\)\.$/);
  }, 30_000);
});

describe('every call speaks the person’s language', () => {
  it('a message made outside the handlers (the browser host’s folder prompt) is in French too', async () => {
    files = makeTempFolder('desk-messages-');
    const dataDir = files.file('data');
    // No page is served here: any script stands in for the bridge.
    const bridgeScriptPath = files.file('desk-bridge.js');
    writeFileSync(bridgeScriptPath, '');
    const launched = await launchBrowserHost({
      dataDir,
      rendererDir: writeRendererFixture(files.file('renderer')),
      bridgeScriptPath,
      demo: false,
      profiles: profileRegistry(dataDir, createMemoryCredentialStore()),
      systemLocales: ['fr-FR'],
    });
    try {
      const missing = files.file('nowhere');
      const refusal = await withDialogAnswer({ paths: [missing] }, () =>
        launched.service.handlers['dialogs.pickFolder'](),
      ).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(refusal).toBe(`Il n’y a pas de dossier à l’emplacement ${missing}.`);

      // A ceremony's one-time link that was used: its page follows the desk's language.
      const usedLink = async () => (await fetch(`${launched.origin}/handoff/used-or-expired`)).text();
      expect(await usedLink()).toBe('Ce lien a déjà été utilisé ou a expiré.\n');
      await launched.service.handlers['app.setLanguage']('de');
      expect(await usedLink()).toBe('Dieser Link wurde bereits verwendet oder ist abgelaufen.\n');
    } finally {
      await launched.close();
    }
  });

  it('a ceremony that cannot be reopened says why in the language of its opening, when its link is followed later', async () => {
    const request = {
      key: 'b/d',
      title: 'Cérémonie',
      session: {
        requestId: 'sr_1',
        widgetUrl: new Secret('https://widget.example/s/1'),
        expiresInSeconds: 1,
        expiresAt: 0,
      },
      renew: async () => ({
        ok: false as const,
        error: {
          operation: 'createWidgetSession' as const,
          code: 'network_unreachable' as const,
          message: 'The signing service cannot be reached.',
          retryable: true,
          outcomeUnknown: false,
          attempts: 1,
        },
      }),
      onClosed: () => undefined,
    };
    const target = speaking(createTranslator('fr').t, () => currentWidgetUrl(request, () => 1));
    // Followed outside any call, as the browser follows it.
    expect(await target()).toEqual({
      failure:
        'La cérémonie n’a pas pu être rouverte\u00a0: Le service de signature est injoignable. Vérifiez le réseau ou le VPN. L’envoi se met en pause et reprend de lui-même au retour du service.',
    });
    const german = speaking(createTranslator('de').t, () => currentWidgetUrl(request, () => 1));
    expect(await german()).toMatchObject({
      failure: expect.stringMatching(/^Die Zeremonie konnte nicht erneut geöffnet werden: /),
    });
  });
});

/** The message of what `call` throws, or undefined when it does not. */
async function refusalOf(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return undefined;
}

describe('a connection’s words in the person’s language', () => {
  const ONE_MISSING = {
    clientId: 'no-ceremony',
    clientSecret: 'no-ceremony-secret-4711',
    scopes: ['signing.create' as const, 'signing.read' as const],
  };
  const TWO_MISSING = {
    clientId: 'read-only',
    clientSecret: 'read-only-secret-4711',
    scopes: ['signing.read' as const],
  };

  it('a test that fails says why in French and German, with the plural of the scopes missing', async () => {
    files = makeTempFolder('desk-messages-');
    const sim = await simulatorForTest({ seed: 7, clients: [DEMO_CLIENT, ONE_MISSING, TWO_MISSING] });
    const service = await openApp(files.file('data'), ['fr-FR']);
    const save = (name: string, baseUrl: string, client: { clientId: string; clientSecret: string }) =>
      service.handlers['profiles.save']({
        name,
        baseUrl,
        clientId: client.clientId,
        secret: client.clientSecret,
      });
    await save('Une', sim.baseUrl, ONE_MISSING);
    await save('Deux', sim.baseUrl, TWO_MISSING);
    // Nothing listens on port 1: refused at once.
    await save('Nulle part', 'http://127.0.0.1:1', DEMO_CLIENT);
    const tested = async (name: string) => {
      const result = await service.handlers['profiles.test'](name);
      return result.ok ? 'connected' : result.message;
    };
    const verdicts = async () => ({
      oneMissing: await tested('Une'),
      twoMissing: await tested('Deux'),
      unreachable: await tested('Nulle part'),
    });
    expect(await verdicts()).toEqual({
      oneMissing:
        'Les identifiants fonctionnent, mais il manque à ce client la permission ceremony.create. L’application a besoin de signing.create, signing.read, ceremony.create\u00a0: demandez à votre administrateur de l’accorder, puis testez de nouveau.',
      twoMissing:
        'Les identifiants fonctionnent, mais il manque à ce client les permissions signing.create, ceremony.create. L’application a besoin de signing.create, signing.read, ceremony.create\u00a0: demandez à votre administrateur de les accorder, puis testez de nouveau.',
      unreachable:
        'Le service de signature est injoignable à l’adresse http://127.0.0.1:1. Vérifiez l’URL de base et le réseau ou le VPN, puis testez de nouveau.',
    });
    await service.handlers['app.setLanguage']('de');
    expect(await verdicts()).toEqual({
      oneMissing:
        'Die Zugangsdaten funktionieren, aber diesem Client fehlt die Berechtigung ceremony.create. Die App braucht signing.create, signing.read, ceremony.create: Bitten Sie Ihre Administration, sie zu erteilen, und testen Sie dann erneut.',
      twoMissing:
        'Die Zugangsdaten funktionieren, aber diesem Client fehlen die Berechtigungen signing.create, ceremony.create. Die App braucht signing.create, signing.read, ceremony.create: Bitten Sie Ihre Administration, sie zu erteilen, und testen Sie dann erneut.',
      unreachable:
        'Der Signaturdienst ist unter http://127.0.0.1:1 nicht erreichbar. Prüfen Sie die Basis-URL und das Netzwerk oder VPN und testen Sie dann erneut.',
    });
  }, 30_000);

  it('a refused profile, no connection chosen, a secret missing from the keychain: in French, then German', async () => {
    files = makeTempFolder('desk-messages-');
    const credentials = createMemoryCredentialStore();
    const service = await openApp(files.file('data'), ['fr-CH'], { credentials });
    const profile = {
      name: 'Bureau',
      baseUrl: 'https://sign.example.com',
      clientId: 'desk',
      secret: 's3cret',
    };
    const batch = await service.handlers['batches.create']('Contrats');
    const refusals = async () => ({
      name: await refusalOf(() => service.handlers['profiles.save']({ ...profile, name: ' ' })),
      secret: await refusalOf(() => service.handlers['profiles.save']({ ...profile, secret: '  ' })),
      none: (await service.handlers['sending.review'](batch.id)).connectionProblem,
    });
    expect(await refusals()).toEqual({
      name: 'Le nom est obligatoire.',
      secret: 'Le secret client ne peut pas être vide.',
      none: 'Choisissez ou créez d’abord une connexion (Connexions), puis réessayez.',
    });
    await service.handlers['app.setLanguage']('de');
    expect(await refusals()).toEqual({
      name: 'Der Name ist erforderlich.',
      secret: 'Das Client-Geheimnis darf nicht leer sein.',
      none: 'Wählen oder erstellen Sie zuerst eine Verbindung (Verbindungen) und versuchen Sie es dann erneut.',
    });

    await service.handlers['profiles.save'](profile);
    await credentials.deleteSecret(savedSecretAccount(files.file('data'), 'Bureau'));
    expect(await refusalOf(() => service.handlers['profiles.test']('Bureau'))).toBe(
      'Für das Verbindungsprofil „Bureau“ ist kein Client-Geheimnis gespeichert. Geben Sie sein Client-Geheimnis unter Verbindungen ein, speichern Sie es und versuchen Sie es dann erneut.',
    );
    await service.handlers['app.setLanguage']('fr');
    expect(await refusalOf(() => service.handlers['profiles.test']('Bureau'))).toBe(
      'Le profil de connexion «\u00a0Bureau\u00a0» n’a pas de secret client enregistré. Saisissez son secret client dans Connexions et enregistrez-le, puis réessayez.',
    );
  });

  it('a sent batch: its ceremony window’s title, Check again refused, and its connection gone, said anew when the language changes', async () => {
    const ceremonies: CeremonyRequest[] = [];
    const credentials = createMemoryCredentialStore();
    const desk = await openConnectedApp(['fr-FR'], { ceremonies, credentials });
    let { service } = desk;
    const batchId = await sendOneDocumentBatch(service.handlers, desk.folder, 'RH-7');
    const [document] = (await service.handlers['batches.get'](batchId)).documents;
    await service.handlers['ceremony.open'](batchId, document!.id);
    expect(ceremonies.map((request) => request.title)).toEqual(['Cérémonie de signature — RH-7']);
    expect(await refusalOf(() => service.handlers['tracking.checkAgain'](batchId, document!.id))).toBe(
      'Ce document n’est pas marqué comme disparu\u00a0: rien à vérifier de nouveau.',
    );

    const problem = async () => (await service.handlers['batches.get'](batchId)).connectionProblem;

    // Its secret gone from the keychain while the app was closed: said at start, in French throughout.
    await closeApp();
    await credentials.deleteSecret(savedSecretAccount(desk.folder.file('data'), 'Büro'));
    service = await openApp(desk.folder.file('data'), ['fr-FR'], { credentials });
    expect(await problem()).toBe(
      'La connexion «\u00a0Büro\u00a0» de ce lot ne peut pas être utilisée\u00a0: Le profil de connexion «\u00a0Büro\u00a0» n’a pas de secret client enregistré. Saisissez son secret client dans Connexions et enregistrez-le, puis réessayez. Il n’est jamais lu avec une autre connexion.',
    );

    await deleteConnectionAnyway(service.handlers, 'Büro');
    expect(await problem()).toBe(
      `Ce lot a été envoyé avec la connexion à ${desk.sim.baseUrl} (client ${DEMO_CLIENT.clientId}), qui ne fait plus partie de vos connexions. Ajoutez-la de nouveau (Connexions) pour poursuivre et suivre ce lot\u00a0; il n’est jamais lu avec une autre connexion.`,
    );
    await service.handlers['app.setLanguage']('de');
    expect(await problem()).toBe(
      `Dieser Stapel wurde mit der Verbindung zu ${desk.sim.baseUrl} (Client ${DEMO_CLIENT.clientId}) gesendet, die nicht mehr zu Ihren Verbindungen gehört. Fügen Sie sie wieder hinzu (Verbindungen), um diesen Stapel fortzusetzen und zu verfolgen; er wird nie mit einer anderen Verbindung gelesen.`,
    );
  }, 30_000);

  it('why a batch of an earlier version is not tracked, in French and German', () => {
    const where = { baseUrl: 'https://sign.example.com', clientId: 'desk' };
    const fr = createTranslator('fr').t;
    const de = createTranslator('de').t;
    const other = {
      kind: 'other_reference',
      where,
      requestId: 'sr_1',
      remoteReference: 'RH-9',
      reference: 'RH-1',
    } as const;
    expect(olderBatchReason(other, fr)).toBe(
      'Ce lot a été envoyé par une version antérieure de l’application, qui n’enregistrait pas sa connexion, et la demande sr_1 chez https://sign.example.com (client desk) appartient à une autre référence (RH-9), pas à RH-1. Rendez active la connexion avec laquelle il a été envoyé (Connexions) pour le suivre.',
    );
    expect(olderBatchReason(other, de)).toBe(
      'Dieser Stapel wurde von einer früheren Version der App gesendet, die seine Verbindung nicht gespeichert hat, und die Anfrage sr_1 bei https://sign.example.com (Client desk) gehört zu einer anderen Referenz (RH-9), nicht zu RH-1. Machen Sie die Verbindung, mit der er gesendet wurde, zur aktiven (Verbindungen), um ihn zu verfolgen.',
    );
    const unreadable = {
      kind: 'unreadable',
      where,
      reference: 'RH-1',
      failure: { code: 'upstream_unavailable' },
    } as const;
    expect(olderBatchReason(unreadable, fr)).toContain(
      'n’a pas pu montrer qu’il détient sa demande pour RH-1 (Le service de signature est temporairement indisponible.',
    );
    expect(olderBatchReason(unreadable, de)).toContain(
      'konnte nicht zeigen, dass er seine Anfrage für RH-1 hat (',
    );
    expect(olderBatchReason({ kind: 'no_answer', where, seconds: 10 }, fr)).toContain(
      'n’a pas dit en 10\u00a0s s’il détient ses demandes',
    );
    expect(olderBatchReason({ kind: 'no_request' }, de)).toMatch(
      /^Dieser Stapel wurde von einer früheren Version der App begonnen/,
    );
    // The command line's words, in English, unchanged.
    expect(olderBatchReason({ kind: 'no_answer', where, seconds: 10 })).toBe(
      'This batch was sent by an earlier version of the app, which did not record its connection, and https://sign.example.com (client desk) did not answer within 10 s whether it holds its requests. The app asks again in a minute; it is tracked only with the connection that holds them.',
    );
  });
});
