import { LIST_DOCTORS, LIST_SERVICES } from '../../domain/catalog.js';
import { LIST_DOCUMENT_TYPES, LIST_PAYMENT_METHODS } from '../../domain/lookups.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/**
 * The lookup lists. Document types and payment methods are static and public (no patient data,
 * decisions.md §2; a bad Authorization header there is ignored); services and doctors need a key.
 */
export const lookupOperations: readonly Operation[] = [
  useCaseOperation(LIST_DOCUMENT_TYPES, {
    method: 'get',
    path: '/document-types',
    operationId: 'listDocumentTypes',
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
  }),
  useCaseOperation(LIST_PAYMENT_METHODS, {
    method: 'get',
    path: '/payment-methods',
    operationId: 'listPaymentMethods',
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
  }),
  useCaseOperation(LIST_SERVICES, {
    method: 'get',
    path: '/services',
    operationId: 'listServices',
    description:
      'A service id is used as `service_id` when booking an appointment. A retired service (1.3.0) is left out unless ' +
      '`include_retired=true`; booking it is 422 `SERVICE_RETIRED`.',
    tag: 'lookups',
    scope: 'lookups:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Service',
      list: true,
      description: 'The services that can be booked (with `include_retired`, every one), in the order added',
      example: examples.servicesExample,
    },
  }),
  useCaseOperation(LIST_DOCTORS, {
    method: 'get',
    path: '/doctors',
    operationId: 'listDoctors',
    description:
      'A doctor id is used as `resource_id` when booking an appointment. A retired doctor (1.3.0) is left out unless ' +
      '`include_retired=true`; booking them is 422 `DOCTOR_RETIRED`.',
    tag: 'lookups',
    scope: 'lookups:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Doctor',
      list: true,
      description: 'The doctors who can be booked (with `include_retired`, every one), in the order added',
      example: examples.doctorsExample,
    },
  }),
];
