// The mock signs callbacks with the document's scheme; the implementation is shared with the carrier kit.
export { signWebhook, webhookSecretKey } from '@restoapi/openapi';
