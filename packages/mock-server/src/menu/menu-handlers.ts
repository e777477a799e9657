import type { HandlerMap } from '../engine/handler.js';
import { draftCategoryHandlers } from './draft-category-handlers.js';
import { draftDishHandlers } from './draft-dish-handlers.js';

/** Every menu-draft operation: categories, dishes and their photo uploads. */
export const menuHandlers: HandlerMap = {
  ...draftCategoryHandlers,
  ...draftDishHandlers,
};
