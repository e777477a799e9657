import type { components } from '@restoapi/openapi';
import { fetchRemotePhotos } from './remote-photos.js';
import { accepted, ok, type HandlerMap } from '../engine/handler.js';
import { unprocessable } from '../engine/http-error.js';
import { organizationForStaff } from '../organizations/organization-handlers.js';
import { assertClientImportSize, clientImportProblems } from './client-import.js';
import { assertNotBusy, jobIdOf, jobState, lastJob, settleDueJobs, startJob } from './import-jobs.js';
import { assertImportSlot, assertRoomFor, withImportSlot } from '../state/session-limits.js';
import { assertMenuImportSize, menuImportProblems, type MenuImportBody } from './menu-import.js';

type S = components['schemas'];

/**
 * `POST/GET /api/organizations/{id}/import/menu` and `…/import/clients`
 * (Endpoints > Organizations, Menu import rules). Order of checks: scope
 * (404/403), size (413), content (422), then the running job (409), so a
 * refused import never queues anything.
 */
export const importHandlers: HandlerMap = {
  async importMenu({ runtime, actor, params, body }) {
    organizationForStaff(runtime.state, actor, params.id);
    const payload = body as MenuImportBody;
    assertMenuImportSize(runtime, payload);
    const problems = menuImportProblems(runtime.state, params.id, payload);
    if (problems.length > 0) throw unprocessable(problems);
    settleDueJobs(runtime, params.id, 'menu');
    assertNotBusy(runtime, params.id, 'menu');
    // The import replaces the organization's drafts: only what it adds beyond them needs room.
    const drafts =
      runtime.state.draftDishes.filter((d) => d.organization_id === params.id).length +
      runtime.state.draftCategories.filter((c) => c.organization_id === params.id).length;
    assertRoomFor(runtime, Math.max(0, payload.dishes.length + (payload.categories?.length ?? 0) - drafts));
    const photos = await withImportSlot(runtime, () => fetchRemotePhotos(runtime, payload));
    // Another import may have started while the photos were fetched: check again, and leave nothing behind.
    settleDueJobs(runtime, params.id, 'menu');
    try {
      assertNotBusy(runtime, params.id, 'menu');
      assertImportSlot(runtime);
    } catch (busy) {
      for (const id of Object.values(photos.fetched)) runtime.state.photos.delete(id);
      throw busy;
    }
    // A copy: the job must not see later changes to the request's object.
    const job = startJob(runtime, params.id, 'menu', structuredClone(payload), {
      remote_photos: photos.fetched,
      ...(Object.keys(photos.refused).length > 0 ? { remote_photos_refused: photos.refused } : {}),
    });
    return accepted({ status: 'queued', job_id: jobIdOf(job) });
  },

  getMenuImport({ runtime, actor, params }) {
    organizationForStaff(runtime.state, actor, params.id);
    settleDueJobs(runtime, params.id, 'menu');
    return ok(jobState(runtime, lastJob(runtime, params.id, 'menu')));
  },

  importClients({ runtime, actor, params, query, body }) {
    organizationForStaff(runtime.state, actor, params.id);
    const payload = body as S['ClientImport'];
    assertClientImportSize(runtime, payload);
    const problems = clientImportProblems(payload);
    if (problems.length > 0) throw unprocessable(problems);
    settleDueJobs(runtime, params.id, 'clients');
    // Independent of a running menu import (decided): the two touch different data.
    assertNotBusy(runtime, params.id, 'clients');
    assertImportSlot(runtime);
    assertRoomFor(runtime, payload.clients.length);
    const job = startJob(runtime, params.id, 'clients', structuredClone(payload), {
      from_scratch: query.from_scratch === true,
    });
    return accepted({ status: 'queued', job_id: jobIdOf(job) });
  },

  getClientImport({ runtime, actor, params }) {
    organizationForStaff(runtime.state, actor, params.id);
    settleDueJobs(runtime, params.id, 'clients');
    return ok(jobState(runtime, lastJob(runtime, params.id, 'clients')));
  },
};
