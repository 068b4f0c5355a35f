/** The error every protobuf decoding failure ends in; `path` names the field being read, if any. */
export class ProtobufDecodeError extends Error {
  override name = 'ProtobufDecodeError';

  constructor(
    message: string,
    readonly path = '',
  ) {
    super(path ? `${path}: ${message}` : message);
  }
}
