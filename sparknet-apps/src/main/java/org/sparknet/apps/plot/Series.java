package org.sparknet.apps.plot;

import java.util.List;
import java.util.Objects;

/**
 * One named set of (x, y) points of an {@link XyChart}, and how to draw it. Immutable: the {@code
 * with...} methods return a changed copy.
 */
public final class Series {
  /** The line joining the points. */
  public enum Line {
    SOLID,
    DASHED,
    DOTTED,
    NONE
  }

  /** The mark drawn at each point. */
  public enum Marker {
    NONE,
    /** A circle, for curves with few points. */
    CIRCLE,
    /** A small dot, for clouds of thousands of points. */
    DOT
  }

  /** The palette slot that means "the next colour in series order". */
  public static final int AUTO_COLOUR = -1;

  private final String name;
  private final double[] x;
  private final double[] y;
  private final Line line;
  private final Marker marker;
  private final int colour;

  private Series(String name, double[] x, double[] y, Line line, Marker marker, int colour) {
    this.name = Objects.requireNonNull(name, "name");
    if (x.length != y.length) {
      throw new IllegalArgumentException(
          "Series '" + name + "' has " + x.length + " x values but " + y.length + " y values");
    }
    this.x = x;
    this.y = y;
    this.line = Objects.requireNonNull(line, "line");
    this.marker = Objects.requireNonNull(marker, "marker");
    if (colour < AUTO_COLOUR) {
      throw new IllegalArgumentException(
          "Series '" + name + "': colour slot " + colour + " is negative (AUTO_COLOUR is -1)");
    }
    this.colour = colour;
  }

  /** A solid line without markers, coloured by its position in the chart. */
  public static Series of(String name, double[] x, double[] y) {
    return new Series(name, x.clone(), y.clone(), Line.SOLID, Marker.NONE, AUTO_COLOUR);
  }

  /** A solid line without markers, coloured by its position in the chart. */
  public static Series of(String name, List<? extends Number> x, List<? extends Number> y) {
    return new Series(name, doubles(x), doubles(y), Line.SOLID, Marker.NONE, AUTO_COLOUR);
  }

  public Series withLine(Line newLine) {
    return new Series(name, x, y, newLine, marker, colour);
  }

  public Series withMarker(Marker newMarker) {
    return new Series(name, x, y, line, newMarker, colour);
  }

  /** This series in palette slot {@code slot} (0 to 9, then repeating), whatever its position. */
  public Series withColour(int slot) {
    return new Series(name, x, y, line, marker, slot);
  }

  public String name() {
    return name;
  }

  public int size() {
    return x.length;
  }

  public double x(int i) {
    return x[i];
  }

  public double y(int i) {
    return y[i];
  }

  public Line line() {
    return line;
  }

  public Marker marker() {
    return marker;
  }

  /** The palette slot, or {@link #AUTO_COLOUR}. */
  public int colour() {
    return colour;
  }

  private static double[] doubles(List<? extends Number> values) {
    double[] out = new double[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i).doubleValue();
    }
    return out;
  }
}
