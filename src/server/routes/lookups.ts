import { listDoctors, listServices } from '../../domain/catalog.js';
import { listDocumentTypes, listPaymentMethods } from '../../domain/lookups.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/**
 * The lookup lists. Document types and payment methods are static and public (no patient data,
 * decisions.md §2; a bad Authorization header there is ignored); services and doctors need a key.
 */
export const lookupOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/document-types',
    operationId: 'listDocumentTypes',
    summary: 'List document types',
    description: 'Public: no key is needed.',
    tag: 'lookups',
    result: {
      kind: 'model',
      status: 200,
      model: 'DocumentType',
      list: true,
      description: 'Every document type',
      example: examples.documentTypesExample,
    },
    handler: () => () => listDocumentTypes(),
  },
  {
    method: 'get',
    path: '/payment-methods',
    operationId: 'listPaymentMethods',
    summary: 'List payment methods',
    description: 'Public: no key is needed.',
    tag: 'lookups',
    result: {
      kind: 'model',
      status: 200,
      model: 'PaymentMethod',
      list: true,
      description: 'Every payment method',
      example: examples.paymentMethodsExample,
    },
    handler: () => () => listPaymentMethods(),
  },
  {
    method: 'get',
    path: '/services',
    operationId: 'listServices',
    summary: 'List services',
    description: 'A service id is used as `service_id` when booking an appointment.',
    tag: 'lookups',
    scope: 'lookups:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Service',
      list: true,
      description: 'Every service, in the order added',
      example: examples.servicesExample,
    },
    handler:
      ({ db }) =>
      () =>
        listServices(db),
  },
  {
    method: 'get',
    path: '/doctors',
    operationId: 'listDoctors',
    summary: 'List doctors',
    description: 'A doctor id is used as `resource_id` when booking an appointment.',
    tag: 'lookups',
    scope: 'lookups:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Doctor',
      list: true,
      description: 'Every doctor, in the order added',
      example: examples.doctorsExample,
    },
    handler:
      ({ db }) =>
      () =>
        listDoctors(db),
  },
];
