package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A small reader and printer for protobuf text format (the syntax of Caffe's prototxt files), so
 * that definitions can be checked and rewritten in Java, with line and column in every error,
 * before Caffe sees them. It knows the syntax only; the schema built on it checks names and types.
 */
public final class TextFormat {
  private TextFormat() {}

  /**
   * One field occurrence: a scalar token or a nested message, with where it was written.
   *
   * @param value the scalar value (decoded for strings, else the raw token: number, enum, bool);
   *     null for a message
   * @param quoted true when the value was written as a quoted string
   * @param message the nested message; null for a scalar
   * @param line 1-based, or 0 for fields made in code
   */
  public record Field(
      String name, String value, boolean quoted, Message message, int line, int column) {

    public static Field scalar(String name, String token) {
      return new Field(name, token, false, null, 0, 0);
    }

    public static Field string(String name, String value) {
      return new Field(name, value, true, null, 0, 0);
    }

    public static Field message(String name, Message m) {
      return new Field(name, null, false, m, 0, 0);
    }

    public boolean isMessage() {
      return message != null;
    }

    /** "line L, column C" or "" for fields made in code. */
    public String where() {
      return line == 0 ? "" : "line " + line + ", column " + column;
    }
  }

  /** An ordered list of fields, as written. Mutable, so that definitions can be rewritten. */
  public static final class Message {
    private final List<Field> fields = new ArrayList<>();

    public List<Field> fields() {
      return fields;
    }

    public List<Field> all(String name) {
      List<Field> out = new ArrayList<>();
      for (Field f : fields) {
        if (f.name.equals(name)) {
          out.add(f);
        }
      }
      return out;
    }

    public Field first(String name) {
      for (Field f : fields) {
        if (f.name.equals(name)) {
          return f;
        }
      }
      return null;
    }

    public boolean has(String name) {
      return first(name) != null;
    }

    /** The scalar value of the first field called {@code name}, or {@code dflt}. */
    public String value(String name, String dflt) {
      Field f = first(name);
      return f == null || f.isMessage() ? dflt : f.value();
    }

    public Message child(String name) {
      Field f = first(name);
      return f == null ? null : f.message();
    }

    public List<String> values(String name) {
      List<String> out = new ArrayList<>();
      for (Field f : all(name)) {
        if (!f.isMessage()) {
          out.add(f.value());
        }
      }
      return out;
    }

    public Message remove(String name) {
      fields.removeIf(f -> f.name.equals(name));
      return this;
    }

    public Message add(Field f) {
      fields.add(f);
      return this;
    }

    /** Replaces every field called {@code name} by one scalar field. */
    public Message set(String name, String token) {
      remove(name);
      fields.add(Field.scalar(name, token));
      return this;
    }

    public Message setString(String name, String value) {
      remove(name);
      fields.add(Field.string(name, value));
      return this;
    }

    public Message copy() {
      Message m = new Message();
      for (Field f : fields) {
        m.fields.add(
            new Field(
                f.name,
                f.value,
                f.quoted,
                f.message == null ? null : f.message.copy(),
                f.line,
                f.column));
      }
      return m;
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder();
      print(this, sb, 0);
      return sb.toString();
    }
  }

  /**
   * Parses {@code text}. Syntax errors throw {@link IllegalArgumentException} naming {@code
   * source}, the line and the column.
   */
  public static Message parse(String text, String source) {
    Objects.requireNonNull(text, source);
    Parser p = new Parser(text, source);
    Message m = p.message(false);
    return m;
  }

  /** Prints {@code m} in text format (comments are not kept). */
  public static String print(Message m) {
    StringBuilder sb = new StringBuilder();
    print(m, sb, 0);
    return sb.toString();
  }

  private static void print(Message m, StringBuilder sb, int indent) {
    for (Field f : m.fields) {
      sb.append("  ".repeat(indent)).append(f.name);
      if (f.message != null) {
        sb.append(" {\n");
        print(f.message, sb, indent + 1);
        sb.append("  ".repeat(indent)).append("}\n");
      } else if (f.quoted) {
        sb.append(": \"").append(escape(f.value)).append("\"\n");
      } else {
        sb.append(": ").append(f.value).append('\n');
      }
    }
  }

  static String escape(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            sb.append(String.format("\\%03o", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.toString();
  }

  private static final class Parser {
    private final String s;
    private final String source;
    private int pos;
    private int line = 1;
    private int col = 1;

    Parser(String s, String source) {
      this.s = s;
      this.source = source;
    }

    private IllegalArgumentException error(int l, int c, String what) {
      return new IllegalArgumentException(
          "Cannot parse " + source + " at line " + l + ", column " + c + ": " + what);
    }

    private void skipSpace() {
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (c == '#') {
          while (pos < s.length() && s.charAt(pos) != '\n') {
            advance();
          }
        } else if (Character.isWhitespace(c)) {
          advance();
        } else {
          return;
        }
      }
    }

    private void advance() {
      if (s.charAt(pos) == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
      pos++;
    }

    private boolean atEnd() {
      skipSpace();
      return pos >= s.length();
    }

    private char peek() {
      return s.charAt(pos);
    }

    private static boolean identStart(char c) {
      return Character.isLetter(c) || c == '_';
    }

    private static boolean identPart(char c) {
      return Character.isLetterOrDigit(c) || c == '_';
    }

    Message message(boolean nested) {
      Message m = new Message();
      while (true) {
        if (atEnd()) {
          if (nested) {
            throw error(line, col, "unexpected end of text: a '}' is missing");
          }
          return m;
        }
        char c = peek();
        if (c == '}' || c == '>') {
          if (!nested) {
            throw error(line, col, "unexpected '" + c + "' with no open message");
          }
          return m;
        }
        int fl = line;
        int fc = col;
        if (!identStart(c)) {
          throw error(fl, fc, "expected a field name but found '" + c + "'");
        }
        String name = identifier();
        skipSpace();
        boolean colon = false;
        if (pos < s.length() && peek() == ':') {
          advance();
          colon = true;
          skipSpace();
        }
        if (pos >= s.length()) {
          throw error(line, col, "field '" + name + "' has no value");
        }
        char v = peek();
        if (v == '{' || v == '<') {
          char close = v == '{' ? '}' : '>';
          advance();
          Message child = message(true);
          if (pos >= s.length() || peek() != close) {
            throw error(line, col, "expected '" + close + "' to close field '" + name + "'");
          }
          advance();
          m.fields.add(new Field(name, null, false, child, fl, fc));
        } else {
          if (!colon) {
            throw error(line, col, "expected ':' or '{' after field name '" + name + "'");
          }
          if (v == '[') {
            list(m, name);
          } else {
            m.fields.add(scalar(name, fl, fc));
          }
        }
        skipSpace();
        if (pos < s.length() && (peek() == ';' || peek() == ',')) {
          advance();
        }
      }
    }

    private String identifier() {
      int start = pos;
      while (pos < s.length() && identPart(peek())) {
        advance();
      }
      return s.substring(start, pos);
    }

    /** A repeated scalar written as a list, {@code name: [a, b, c]}: one field per value. */
    private void list(Message m, String name) {
      advance();
      skipSpace();
      if (pos < s.length() && peek() == ']') {
        advance();
        return;
      }
      while (true) {
        skipSpace();
        m.fields.add(scalar(name, line, col));
        skipSpace();
        if (pos < s.length() && peek() == ',') {
          advance();
          continue;
        }
        if (pos < s.length() && peek() == ']') {
          advance();
          return;
        }
        throw error(line, col, "expected ',' or ']' in the list of '" + name + "'");
      }
    }

    private Field scalar(String name, int fl, int fc) {
      if (pos >= s.length()) {
        throw error(line, col, "field '" + name + "' has no value");
      }
      char c = peek();
      if (c == '"' || c == '\'') {
        StringBuilder sb = new StringBuilder();
        while (pos < s.length() && (peek() == '"' || peek() == '\'')) {
          sb.append(quoted());
          skipSpace();
        }
        return new Field(name, sb.toString(), true, null, fl, fc);
      }
      int vl = line;
      int vc = col;
      int start = pos;
      if (c == '-' || c == '+') {
        advance();
      }
      while (pos < s.length()) {
        char d = peek();
        if (Character.isLetterOrDigit(d) || d == '_' || d == '.' || d == '+' || d == '-') {
          // '+'/'-' only right after an exponent marker
          if ((d == '+' || d == '-') && !(pos > start && "eE".indexOf(s.charAt(pos - 1)) >= 0)) {
            break;
          }
          advance();
        } else {
          break;
        }
      }
      String token = s.substring(start, pos);
      if (token.isEmpty() || token.equals("-") || token.equals("+")) {
        throw error(vl, vc, "expected a value for field '" + name + "' but found '" + c + "'");
      }
      return new Field(name, token, false, null, fl, fc);
    }

    private String quoted() {
      char q = peek();
      int ql = line;
      int qc = col;
      advance();
      StringBuilder sb = new StringBuilder();
      while (true) {
        if (pos >= s.length() || peek() == '\n') {
          throw error(ql, qc, "string is not closed");
        }
        char c = peek();
        advance();
        if (c == q) {
          return sb.toString();
        }
        if (c == '\\') {
          if (pos >= s.length()) {
            throw error(ql, qc, "string is not closed");
          }
          char e = peek();
          advance();
          switch (e) {
            case 'n' -> sb.append('\n');
            case 't' -> sb.append('\t');
            case 'r' -> sb.append('\r');
            case '\\' -> sb.append('\\');
            case '\'' -> sb.append('\'');
            case '"' -> sb.append('"');
            default -> {
              if (e >= '0' && e <= '7') {
                int v = e - '0';
                for (int k = 0; k < 2 && pos < s.length() && peek() >= '0' && peek() <= '7'; k++) {
                  v = v * 8 + (peek() - '0');
                  advance();
                }
                sb.append((char) v);
              } else {
                throw error(line, col - 1, "unknown escape '\\" + e + "' in string");
              }
            }
          }
        } else {
          sb.append(c);
        }
      }
    }
  }
}
