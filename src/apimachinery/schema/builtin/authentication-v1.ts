/**
 * Built-in type descriptors for authentication.k8s.io/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { AUTHENTICATION_V1, BOOLEAN, INT64, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const authenticationV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: AUTHENTICATION_V1 + '.SelfSubjectReview',
    description: 'Returns the user attributes the server authenticated the caller as.',
    gvk: [{ group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'status', proto: 2, type: ref(AUTHENTICATION_V1, 'SelfSubjectReviewStatus'), description: 'The caller\'s user information, filled in by the server.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.SelfSubjectReviewStatus',
    description: 'Result of a self subject review.',
    fields: [
      { name: 'userInfo', proto: 1, type: ref(AUTHENTICATION_V1, 'UserInfo'), description: 'Attributes of the authenticated caller.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.UserInfo',
    description: 'Attributes of an authenticated user.',
    fields: [
      { name: 'username', proto: 1, type: STRING, description: 'Unique name of the user.' },
      { name: 'uid', proto: 2, type: STRING, description: 'Identifier of the user that is stable over time.' },
      { name: 'groups', proto: 3, type: list(STRING), listType: 'atomic', description: 'Groups the user belongs to.' },
      { name: 'extra', proto: 4, type: map(list(STRING)), description: 'Further attributes provided by the authenticator.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.TokenReview',
    description: 'Asks the server to authenticate a bearer token.',
    gvk: [{ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTHENTICATION_V1, 'TokenReviewSpec'), required: true, description: 'The token to check.' },
      { name: 'status', proto: 3, type: ref(AUTHENTICATION_V1, 'TokenReviewStatus'), description: 'The result, filled in by the server.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.TokenReviewSpec',
    description: 'A token authentication request.',
    fields: [
      { name: 'token', proto: 1, type: STRING, description: 'The bearer token.' },
      { name: 'audiences', proto: 2, type: list(STRING), listType: 'atomic', description: 'Audiences the token must be valid for; defaults to the server\'s own.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.TokenReviewStatus',
    description: 'Result of a token review.',
    fields: [
      { name: 'authenticated', proto: 1, type: BOOLEAN, description: 'Whether the token is valid.' },
      { name: 'user', proto: 2, type: ref(AUTHENTICATION_V1, 'UserInfo'), description: 'The user the token belongs to.' },
      { name: 'audiences', proto: 4, type: list(STRING), listType: 'atomic', description: 'Audiences the token is valid for among those requested.' },
      { name: 'error', proto: 3, type: STRING, description: 'Why the token could not be checked.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.TokenRequest',
    description: 'Requests a token for a service account.',
    gvk: [{ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTHENTICATION_V1, 'TokenRequestSpec'), required: true, description: 'Parameters of the token.' },
      { name: 'status', proto: 3, type: ref(AUTHENTICATION_V1, 'TokenRequestStatus'), description: 'The issued token.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.TokenRequestSpec',
    description: 'Parameters of a requested token.',
    fields: [
      { name: 'audiences', proto: 1, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Intended audiences of the token.' },
      { name: 'expirationSeconds', proto: 4, type: INT64, emitZero: true, description: 'Requested lifetime in seconds; the server may shorten it.' },
      { name: 'boundObjectRef', proto: 3, type: ref(AUTHENTICATION_V1, 'BoundObjectReference'), description: 'Object the token is bound to; the token becomes invalid when it is deleted.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.BoundObjectReference',
    description: 'The object a token is bound to.',
    fields: [
      { name: 'kind', proto: 1, type: STRING, description: 'Kind of the referent: Pod, Node or Secret.' },
      { name: 'apiVersion', proto: 2, type: STRING, description: 'API version of the referent.' },
      { name: 'name', proto: 3, type: STRING, description: 'Name of the referent.' },
      { name: 'uid', proto: 4, type: STRING, description: 'UID of the referent.' },
    ],
  },
  {
    name: AUTHENTICATION_V1 + '.TokenRequestStatus',
    description: 'A token issued for a token request.',
    fields: [
      { name: 'token', proto: 1, type: STRING, required: true, emitZero: true, description: 'The token.' },
      { name: 'expirationTimestamp', proto: 2, type: TIME, required: true, description: 'When the token expires.' },
    ],
  },
];
