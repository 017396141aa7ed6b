package org.sparknet.apps.data;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.storage.StoragePath;

/**
 * The lines of Caffe's {@code ImageData} list file ({@code image_data_param.source}): {@code path
 * label}, split at the last space as Caffe 1.0 splits them ({@code find_last_of(' ')}), so a path
 * may hold spaces. Where Caffe reads a line without a space or with a label that is no integer as
 * label 0 ({@code atoi}), these are errors here; a carriage return at a line's end (a list written
 * on Windows) is dropped and blank lines are skipped, where Caffe would try to open an image named
 * "".
 */
final class ImageList {
  /** One line: its number (from 1), the path as written and the label. */
  record Entry(int line, String path, int label) {}

  private ImageList() {}

  /** The entries of {@code text}, the contents of {@code list} (named in errors). */
  static List<Entry> parse(StoragePath list, String text) {
    List<Entry> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line =
          lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
      if (line.isBlank()) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      String label = space < 0 ? "" : line.substring(space + 1);
      if (space <= 0 || label.isEmpty()) {
        throw new IllegalArgumentException(
            "Image list "
                + list
                + " line "
                + (i + 1)
                + " '"
                + line
                + "' has no label; ImageData reads 'path label' lines, split at the last space");
      }
      try {
        out.add(new Entry(i + 1, line.substring(0, space), Integer.parseInt(label)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "Image list "
                + list
                + " line "
                + (i + 1)
                + " has label '"
                + label
                + "', which is not an integer; ImageData reads 'path label' lines, split at the"
                + " last space");
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "Image list " + list + " is empty; ImageData needs 'path label' lines");
    }
    return out;
  }
}
