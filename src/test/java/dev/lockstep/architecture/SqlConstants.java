package dev.lockstep.architecture;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.FieldVisitor;
import org.springframework.asm.Handle;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

/**
 * The SQL compiled into classes, read from their bytecode: string constants loaded by code, constant fields,
 * annotation values ({@code @Query}) and the constant text of string concatenations (an argument shows as {@code ?}).
 * Reading class files rather than sources sees text blocks, concatenated constants and constants inlined from other
 * classes exactly as they run. Every string constant of a class that holds at least one statement counts, so the
 * pieces a statement is assembled from (" limit ", ") < (?, ?)") are read too.
 */
final class SqlConstants {

    private static final Pattern STATEMENT = Pattern.compile(
            "^\\s*(select|insert|update|delete|merge|with|lock table|call|alter|create)\\s", Pattern.CASE_INSENSITIVE);

    /**
     * One string constant. {@code owner} is the top-level class, {@code holder} the class whose bytecode holds it (maybe
     * nested, maybe an enum constant's body), {@code method} the method (null for a constant field), {@code marked}
     * whether that method or the owner carries the annotation named when reading.
     */
    record Found(String owner, String holder, String method, String sql, boolean marked) {
    }

    private SqlConstants() {
    }

    /** The constants of classes under {@code root} whose names start with {@code prefix}. */
    static List<Found> in(Path root, String prefix, Class<?> marker) {
        String markerDescriptor = "L" + marker.getName().replace('.', '/') + ";";
        List<Found> constants = new ArrayList<>();
        Set<String> markedClasses = new HashSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(file -> file.toString().endsWith(".class")).forEach(file -> {
                String name = root.relativize(file).toString().replace(File.separatorChar, '.').replaceAll("\\.class$", "");
                if (name.startsWith(prefix)) {
                    read(file, name, markerDescriptor, constants, markedClasses);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> runningSql = constants.stream().filter(found -> STATEMENT.matcher(found.sql()).find())
                .map(Found::owner).collect(Collectors.toSet());
        return constants.stream().filter(found -> runningSql.contains(found.owner()))
                .map(found -> markedClasses.contains(found.owner()) && !found.marked()
                        ? new Found(found.owner(), found.holder(), found.method(), found.sql(), true) : found)
                .toList();
    }

    private static void read(Path file, String name, String markerDescriptor, List<Found> found, Set<String> markedClasses) {
        String owner = name.replaceAll("\\$.*$", "");
        try (InputStream in = Files.newInputStream(file)) {
            new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
                    if (descriptor.equals(markerDescriptor)) {
                        markedClasses.add(owner);
                    }
                    return null;
                }

                @Override
                public FieldVisitor visitField(int access, String field, String descriptor, String signature, Object value) {
                    add(value, null, false);
                    return null;
                }

                @Override
                public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
                        String[] exceptions) {
                    return new MethodVisitor(Opcodes.ASM9) {
                        private boolean marked;

                        @Override
                        public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                            marked |= annotation.equals(markerDescriptor);
                            return new AnnotationVisitor(Opcodes.ASM9) { // a repository's @Query text
                                @Override
                                public void visit(String element, Object value) {
                                    add(value, method, marked);
                                }
                            };
                        }

                        @Override
                        public void visitLdcInsn(Object value) {
                            add(value, method, marked);
                        }

                        @Override
                        public void visitInvokeDynamicInsn(String indy, String descriptor, Handle bootstrap, Object... arguments) {
                            for (Object argument : arguments) {
                                if (argument instanceof String recipe) { // \1 where an argument goes, \2 a constant
                                    add(recipe.replaceAll("[\u0001\u0002]", "?"), method, marked);
                                }
                            }
                        }
                    };
                }

                private void add(Object value, String method, boolean marked) {
                    if (value instanceof String text) {
                        found.add(new Found(owner, name, method, text, marked));
                    }
                }
            }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
