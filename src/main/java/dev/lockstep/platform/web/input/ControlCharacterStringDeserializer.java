package dev.lockstep.platform.web.input;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.jdk.StringDeserializer;

/** Jackson's own String deserializer, refusing what {@link ControlCharacters} forbids. */
final class ControlCharacterStringDeserializer extends StringDeserializer {

    @Override
    public String deserialize(JsonParser parser, DeserializationContext context) {
        String value = super.deserialize(parser, context);
        if (ControlCharacters.contains(value)) {
            throw new ControlCharacterException(parser, value);
        }
        return value;
    }
}
